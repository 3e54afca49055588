package crtarget

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/lwreplay/lwreplay/fuzz/harness"
)

// A controller makes the informers of its For, Owns and Watches kinds when
// it starts, after the manager's cache synced what it was asked for before.
// So a manager whose cache has synced is not synced yet while one of its
// controllers has not started its sources. NewManager's manager keeps the
// controllers added to it (runManager.Add). The run counts it synced only
// once both hold:
//   - each controller has logged "Starting EventSource" (as it starts each
//     source, in parallel: by the time the run looks, after the bubble is
//     idle, each source has made its informer) or "Starting Controller"
//     (one without sources);
//   - every informer has synced.
//
// See pkg/internal/controller, Start, in v0.23 to v0.25. The controller's
// own wait for its sources polls the cache every 100 ms per sub-cache.
// The run counts the informers' sync, not when the controller saw it.
// A controller of a manager that is no leader never starts: that manager
// never syncs.

// runManager is a manager that keeps the names of the controllers added to
// it.
type runManager struct {
	manager.Manager
	controllers *controllerStarts
	rec         *Reconciles
	stop        *stopSignal // its cache's (releasingCache)
}

// Start runs the manager until ctx is done, noting ctx for its cache. A
// stop its runnables outlast (controller-runtime's grace period) is
// returned with the site of the reflector still running, if one is
// (stillInReflector).
func (m *runManager) Start(ctx context.Context) error {
	m.stop.set(ctx)
	err := m.Manager.Start(ctx)
	if err != nil && strings.Contains(err.Error(), "to end within grace period") {
		if site := stillInReflector(harness.RunStacks()); site != "" {
			return &harness.SiteError{Err: fmt.Errorf("%w (still running: %s)", err, site), Site: site}
		}
	}
	return err
}

// reflectorFrame starts the frames of client-go's Reflector methods.
const reflectorFrame = "k8s.io/client-go/tools/cache.(*Reflector)."

// stillInReflector returns the innermost Reflector method (its full
// name) that one of stacks (a run's goroutines) is in, "" when none is:
// a reflector that did not stop when its informer was told to.
func stillInReflector(stacks []string) string {
	for _, g := range stacks {
		for line := range strings.Lines(g) {
			if fn, ok := strings.CutPrefix(line, reflectorFrame); ok {
				name, _, _ := strings.Cut(fn, "(")
				return reflectorFrame + name
			}
		}
	}
	return ""
}

// Add adds r to the manager, noting it if it is a controller. A controller
// is a runnable whose GetLogger logs through the manager's reconcileSink
// with a "controller" name (the builder's and controller.New's loggers),
// or one whose own LogConstructor adoptLogs made tell it too.
func (m *runManager) Add(r manager.Runnable) error {
	name, adopted := adoptLogs(r, m.rec, m.controllers)
	if err := m.Manager.Add(r); err != nil {
		return err
	}
	if adopted {
		m.controllers.added(name)
		return nil
	}
	if c, ok := r.(interface{ GetLogger() logr.Logger }); ok {
		if s, ok := c.GetLogger().GetSink().(*reconcileSink); ok {
			if name, ok := s.controller(); ok {
				m.controllers.added(name)
			}
		}
	}
	return nil
}

// controllerStarts is which controllers a manager has and which of them
// started their sources. It is safe for concurrent use.
type controllerStarts struct {
	mu      sync.Mutex
	all     map[string]bool // by name: started
	pending int             // added, not started
}

// newControllerStarts returns an empty record.
func newControllerStarts() *controllerStarts {
	return &controllerStarts{all: map[string]bool{}}
}

// added notes a controller named name.
func (c *controllerStarts) added(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, seen := c.all[name]; !seen {
		c.all[name] = false
		c.pending++
	}
}

// started notes that the controller named name started its sources.
func (c *controllerStarts) started(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if started, seen := c.all[name]; seen && !started {
		c.pending--
	}
	c.all[name] = true
}

// allStarted reports whether every controller added started its sources.
func (c *controllerStarts) allStarted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending == 0
}
