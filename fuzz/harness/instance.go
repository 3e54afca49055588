package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/fuzz/internal/site"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/observe"
)

// The target of a run is one process until a fault crashes it
// (crash-after-write). The instance that wrote is stopped at once: its
// requests from then on, and the answer it was waiting for, are lost, as
// when a process dies. A fresh instance starts against the same replay,
// with a new Env and a new Probe (cold caches).
//
// A fault may stop it instead (graceful-restart). Its context is
// cancelled, as by a SIGTERM, and it runs its graceful shutdown. Once its
// Run has returned, or observe.StopGrace of virtual time has passed
// (NotStopped), it is cut off as a crashed one is. Then a fresh instance
// starts.
//
// A target that runs as a Pod's container (Target.Container) may exit:
// its Run returns an error while the run goes on. The kubelet restarts it
// after its backoff (containerBackoff), so the run starts a fresh instance
// then, cut off as a crashed one is.
//
// The invariants judge the last instance's deliveries, store and sync.
// The panics and errors every instance recorded before it ended count too.

// errCrashed is what a crashed instance's requests get: it is dead, and
// nothing it asks reaches the replay.
var errCrashed = errors.New("the target crashed: its requests no longer reach the replay")

// instance is one incarnation of a run's target.
type instance struct {
	probe  *Probe
	env    *Env
	gate   *crashGate
	done   chan struct{} // closed when its Run has returned
	cancel context.CancelFunc
	// restarted says it is not the run's first instance: it started after
	// one exited, crashed or was stopped
	restarted bool

	// how its Run ended (read once done is closed)
	err       error
	panic     any
	panicAt   time.Duration
	panicSite string
	endedAt   time.Duration // when its Run returned

	mu        sync.Mutex
	stoppedAt time.Duration // when a fault stopped it; -1 unless one did
	crashedAt time.Duration // when it crashed (a stopped one: was cut off); -1 while it runs
	panics    []string      // its probe's panics and errors when it crashed
	sites     []string
	firstAt   time.Duration
	errs      []string
}

// startInstance starts a fresh instance of s.Target on transport, running
// until ctx (the run's) is done. It is made cur's instance before it sends
// a request, and its deliveries are timed from start.
// A Container target's instance calls ended once its Run has returned.
func startInstance(ctx context.Context, s Spec, transport http.RoundTripper, start time.Time, cache *level.Cache, cur *atomic.Pointer[instance], ended func(), givenUp <-chan struct{}) {
	probe := NewProbe(start)
	if cache != nil && s.Level == level.Typed {
		probe.known = cache.Known
	}
	ctx, cancel := context.WithCancel(ctx)
	in := &instance{probe: probe, done: make(chan struct{}), cancel: cancel, stoppedAt: -1, crashedAt: -1, restarted: cur.Load() != nil}
	in.gate = &crashGate{next: transport, open: map[*gatedBody]bool{}}
	in.env = &Env{
		Config:    &rest.Config{Host: level.ReplayHost, Transport: in.gate},
		Resource:  s.Resource,
		Probe:     probe,
		WatchList: s.WatchList,
		Level:     s.Level,
		cache:     cache,
		givenUp:   givenUp,
	}
	target := s.Target
	// the run's current instance before its target sends a request: a
	// fault at its first request stops or crashes cur's instance
	cur.Store(in)
	go func() {
		if target.Container {
			defer ended()
		}
		defer close(in.done)
		defer func() {
			if in.panic = recover(); in.panic != nil {
				in.panicAt, in.panicSite = time.Since(start), site.CallerSite()
			}
		}()
		in.err = target.Run(ctx, in.env)
		in.endedAt = time.Since(start)
	}()
}

// crash kills the instance at virtual time at. Its gate refuses every
// request from now on and closes what it streams. What its probe recorded
// of panics and errors is kept as it was. Its context is left alone until
// the run ends, as a crash runs no graceful shutdown. Otherwise a crash
// while the target is still coming up would be no crash:
// controller-runtime's runnableGroup.Start loops on a done context until
// every runnable has signalled ready (pkg/manager/runnable_group.go).
func (in *instance) crash(at time.Duration) {
	in.mu.Lock()
	if in.crashedAt >= 0 {
		in.mu.Unlock()
		return
	}
	in.crashedAt = at
	in.probe.mu.Lock()
	in.panics = append([]string(nil), in.probe.panics...)
	in.sites = append([]string(nil), in.probe.panicSites...)
	in.firstAt = in.probe.firstPanic
	in.errs = append([]string(nil), in.probe.errs...)
	in.probe.mu.Unlock()
	in.mu.Unlock()
	in.gate.kill()
}

// stop asks the instance to stop at virtual time at, as a SIGTERM does:
// its context is cancelled, and it runs its graceful shutdown. The run
// cuts it off (crash) once it has returned.
func (in *instance) stop(at time.Duration) {
	in.mu.Lock()
	if in.stoppedAt >= 0 || in.crashedAt >= 0 {
		in.mu.Unlock()
		return
	}
	in.stoppedAt = at
	in.mu.Unlock()
	in.cancel()
}

// stopping returns when a fault stopped the instance, and whether one did
// and it has not been cut off yet.
func (in *instance) stopping() (time.Duration, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.stoppedAt, in.stoppedAt >= 0 && in.crashedAt < 0
}

// crashed returns when the instance crashed, and whether it did (a
// stopped one does not crash).
func (in *instance) crashed() (time.Duration, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.crashedAt, in.crashedAt >= 0 && in.stoppedAt < 0
}

// exited returns when the instance's Run returned an error, and whether
// it did while the instance ran on: no fault stopped or crashed it, and it
// did not panic. A Container target's such instance has exited. An error
// wrapping ErrTarget (it could not be set up) is no exit for the run's
// first instance: the test's setup is broken. It is one for a restarted
// instance, whose setup met the cluster as the faults left it (an
// apiserver refusing connections to its discovery): an operator's main
// exits then, and the kubelet restarts it.
func (in *instance) exited() (time.Duration, bool) {
	select {
	case <-in.done:
	default:
		return 0, false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.endedAt, in.err != nil && (in.restarted || !errors.Is(in.err, ErrTarget)) && in.panic == nil && in.stoppedAt < 0 && in.crashedAt < 0
}

// failures adds to obs what a crashed instance recorded before it crashed:
// panics, their sites, errors, and a Run that panicked first. For a
// stopped one, it also adds the error its Run returned (other than its
// cancellation).
func (in *instance) failures(obs *observe.Observation) {
	in.mu.Lock()
	defer in.mu.Unlock()
	ended := false
	select {
	case <-in.done: // its Run's outcome is set; one still running is not read
		ended = true
	default:
	}
	if ended && in.panic != nil && in.panicAt <= in.crashedAt {
		obs.Panics = append(obs.Panics, fmt.Sprint(in.panic))
		obs.PanicSites = append(obs.PanicSites, in.panicSite)
		if obs.FirstPanicAt < 0 || in.panicAt < obs.FirstPanicAt {
			obs.FirstPanicAt = in.panicAt
		}
	}
	if len(in.panics) > 0 && (obs.FirstPanicAt < 0 || in.firstAt < obs.FirstPanicAt) {
		obs.FirstPanicAt = in.firstAt
	}
	obs.Panics = append(obs.Panics, in.panics...)
	obs.PanicSites = append(obs.PanicSites, in.sites...)
	obs.Errors = append(obs.Errors, in.errs...)
	if ended && in.stoppedAt >= 0 && in.err != nil && !errors.Is(in.err, context.Canceled) {
		noteRunError(obs, in.err)
	}
}

// crashGate is the transport of one instance. It passes requests on until
// the instance crashes. Then it refuses them, drops the answer of a
// request in flight and closes every body still being read.
type crashGate struct {
	next http.RoundTripper
	dead atomic.Bool

	mu   sync.Mutex
	open map[*gatedBody]bool
}

// RoundTrip passes r on unless the instance has crashed.
func (g *crashGate) RoundTrip(r *http.Request) (*http.Response, error) {
	if g.dead.Load() {
		return nil, errCrashed
	}
	resp, err := g.next.RoundTrip(r)
	if err != nil || resp == nil || resp.Body == nil {
		return resp, err
	}
	b := &gatedBody{ReadCloser: resp.Body, g: g}
	g.mu.Lock()
	dead := g.dead.Load()
	if !dead {
		g.open[b] = true
	}
	g.mu.Unlock()
	if dead { // the answer of the write the crash came after, or one racing it
		resp.Body.Close()
		return nil, errCrashed
	}
	resp.Body = b
	return resp, nil
}

// kill marks the gate dead and closes the bodies still open, on a
// goroutine of its own. Closing a stream waits for its handler to return.
func (g *crashGate) kill() {
	g.mu.Lock()
	g.dead.Store(true)
	open := g.open
	g.open = nil
	g.mu.Unlock()
	go func() {
		for b := range open {
			b.closeOnce()
		}
	}()
}

// gatedBody is a response body of a gate's instance.
type gatedBody struct {
	io.ReadCloser
	g    *crashGate
	once sync.Once
	err  error
}

// closeOnce closes the body underneath, once.
func (b *gatedBody) closeOnce() error {
	b.once.Do(func() { b.err = b.ReadCloser.Close() })
	return b.err
}

// Read fails once the instance has crashed.
func (b *gatedBody) Read(p []byte) (int, error) {
	if b.g.dead.Load() {
		return 0, errCrashed
	}
	return b.ReadCloser.Read(p)
}

// Close closes the body and forgets it.
func (b *gatedBody) Close() error {
	b.g.mu.Lock()
	delete(b.g.open, b)
	b.g.mu.Unlock()
	return b.closeOnce()
}
