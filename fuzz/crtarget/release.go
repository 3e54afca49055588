package crtarget

import (
	"context"
	"sync"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// A manager stopped while its caches sync busy-loops in controller-runtime
// v0.23 to v0.25 until they have synced (controller-runtime#3440,
// docs/bugs-found.md). In a real process that takes a while; in a run's
// virtual time it never ends: the loop keeps the clock still, and the
// caches' 100 ms polls never come. The run gives the target up after its
// spin bound and reports the spin. Before, the loop then ran on in the
// process for ever: each such input of a go test -fuzz worker left a core
// busy, and changed how the goroutines of every later run interleave.
//
// releasingCache ends it. Its WaitForCacheSync, the check controller-
// runtime's loop waits on, waits on the run's Env.GivenUp once the manager
// was stopped while it waited. Given up, it answers true: the loop ends,
// the manager shuts down, and the run ends (harness.ReleaseWait).

// stopSignal holds the context the manager was started with.
type stopSignal struct {
	mu  sync.Mutex
	ctx context.Context // nil before Start
}

// set notes ctx, the manager's Start context.
func (s *stopSignal) set(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctx = ctx
}

// done returns the Start context's Done channel; nil before Start.
func (s *stopSignal) done() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		return nil
	}
	return s.ctx.Done()
}

// releasingCache is a manager's cache whose WaitForCacheSync ends once the
// run gave the target up, if the manager was stopped while it waited.
type releasingCache struct {
	cache.Cache
	stop    *stopSignal
	givenUp <-chan struct{}
}

// releasing returns a NewCacheFunc that wraps the caches inner builds.
func releasing(inner cache.NewCacheFunc, stop *stopSignal, givenUp <-chan struct{}) cache.NewCacheFunc {
	return func(config *rest.Config, opts cache.Options) (cache.Cache, error) {
		c, err := inner(config, opts)
		if err != nil || givenUp == nil {
			return c, err
		}
		return &releasingCache{Cache: c, stop: stop, givenUp: givenUp}, nil
	}
}

// WaitForCacheSync waits for the cache to sync, as the cache's own does.
// Once the manager has been stopped, it also ends when the run gives the
// target up, answering true.
func (c *releasingCache) WaitForCacheSync(ctx context.Context) bool {
	stopped := c.stop.done()
	if stopped == nil {
		return c.Cache.WaitForCacheSync(ctx)
	}
	synced := make(chan bool, 1)
	go func() { synced <- c.Cache.WaitForCacheSync(ctx) }()
	select {
	case ok := <-synced:
		return ok
	case <-stopped:
	}
	select {
	case ok := <-synced:
		return ok
	case <-c.givenUp:
		return true
	}
}
