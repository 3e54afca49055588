package harness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/recorder"
)

// ConfigMaps, core v1 configmaps, is the resource a run watches when its
// Spec (or Options) names none.
var ConfigMaps = history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// Observe runs s.Target against a replay of s.History perturbed by s.Plan,
// inside a testing/synctest bubble, and returns what it observed. The run
// lasts until the target has caught up with an exhausted replay, or until
// the watchdog (15 minutes) in virtual time. That costs real time only for
// what the target and the replayer compute.
func Observe(t *testing.T, s Spec) *observe.Observation {
	t.Helper()
	defer QuietClientGo()()
	defer enterGates(runGates(s))()
	if s.Resource == (history.Resource{}) {
		s.Resource = ConfigMaps
	}
	var obs *observe.Observation
	var panicked any
	w := &spinWatch{release: make(chan struct{}), known: s.KnownSpins}
	if !s.Deadline.IsZero() && time.Now().After(s.Deadline) {
		w.late.Store(true) // begun past its deadline: cut at its first look, not at the watcher's first tick
	}
	finished := make(chan struct{})
	// The bubble runs on a goroutine of its own. So a run whose goroutines
	// never block (its clock stands still: a spin) can be given up after
	// SpinBound of real time. Its goroutines are then left running.
	go func() {
		defer close(finished)
		defer func() {
			p := recover()
			switch {
			case p == nil:
			case isLeftGoroutines(p) && obs != nil:
				id, _ := w.bubble.Load().(string)
				obs.LeftGoroutines, obs.LeftStack = leftIn(id)
			default:
				panicked = p
			}
		}()
		synctest.Test(t, func(t *testing.T) {
			defer func() {
				if p := recover(); p != nil { // a test that completed meanwhile must not hear of it
					w.fail(func() { t.Errorf("harness: got panic %v, want none\n%s", p, debug.Stack()) })
				}
			}()
			w.bubble.Store(bubbleID())
			obs = runInBubble(t, s, w)
		})
	}()
	bound := s.SpinBound
	if bound <= 0 {
		bound = DefaultSpinBound
	}
	spin, late := w.watch(finished, bound, s.Deadline)
	switch {
	case late:
		w.abandon()
		return lateObservation(s, w)
	case spin != nil:
		obs := spinObservation(s, spin, w)
		// Told it was given up, a spin a target's wait kept going may end, and
		// the run with it (ReleaseWait): then none of its goroutines outlives
		// Observe. Else they are left running.
		w.giveUp()
		wait := ReleaseWait
		if !s.Deadline.IsZero() {
			wait = min(wait, time.Until(s.Deadline.Add(DeadlineGrace)))
		}
		if wait > 0 {
			w.released(finished, spin, wait)
		}
		w.abandon()
		return obs
	}
	if panicked != nil {
		panic(panicked)
	}
	return obs
}

// storeSnapshot is the target's store, as key → resourceVersion, from a
// moment of the run on.
type storeSnapshot struct {
	at  time.Duration
	rvs map[string]string
}

// runInBubble is Observe's body; it must run inside a synctest bubble.
func runInBubble(t *testing.T, s Spec, w *spinWatch) *observe.Observation {
	t.Helper()
	defer w.work(false) // after every other deferred call: the reproducer is written
	if err := CheckGates(s.Gates); err != nil {
		w.errorf(t, "gates: got error %v, want none", err)
		return nil
	}
	var cur atomic.Pointer[instance] // the target's live instance
	ended := make(chan struct{}, 1)  // wakes the loop: an instance crashed or was stopped
	wake := func() {
		select {
		case ended <- struct{}{}:
		default:
		}
	}
	var start time.Time
	crash := func() { // a fault crashes the instance that wrote (crash-after-write)
		cur.Load().crash(time.Since(start))
		wake()
	}
	stop := func() { // a fault stops the instance that asked (graceful-restart)
		cur.Load().stop(time.Since(start))
		w.stopping.Store(true)
		wake()
	}
	served := &servingLog{start: &start}
	srv, err := newReplay(s, crash, stop, served.note)
	if err != nil {
		w.errorf(t, "replay: got error %v, want none", err)
		return nil
	}
	w.fired.Store(srv.Fired)
	transport := srv.Transport()
	if s.RecordTo != "" {
		traffic, err := recorder.New(s.RecordTo, recorder.WithFlushInterval(time.Hour), recorder.WithBeforeSave(cassette.MarkVerbatim))
		if err != nil {
			w.errorf(t, "record %s: got error %v, want none", s.RecordTo, err)
			return nil
		}
		defer func() {
			if err := traffic.Close(); err != nil {
				w.errorf(t, "record %s: close: got error %v, want none", s.RecordTo, err)
			}
		}()
		transport = traffic.Wrap(transport)
	}
	seedClientGo(s)
	start = time.Now()
	stopped := make(chan struct{}) // closed when the run stops the target
	bound := newRequestBound(transport, s.MaxBurst, s.MaxRate, start, stopped)
	bound.collected = srv.Collected
	if m, ok := srv.(modelReplay); ok {
		bound.writes = m.WritesFrom
	}
	bound.onTrip = wake // a crossed bound ends the run at once
	transport = bound
	res := s.Resource
	obs := &observe.Observation{Resource: res, SyncedAt: -1, LastFaultAt: -1, ConvergedAt: -1, FirstPanicAt: -1, LiveBound: s.LiveBound,
		Gates: effectiveGates(s.Gates, s.WatchList)}
	if obs.LiveBound <= 0 {
		obs.LiveBound = observe.DefaultLiveBound
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	acts := startActors(ctx, s, srv, start, wake, obs) // nil: no actors
	startInstance(ctx, s, transport, start, s.Cache, &cur, wake, w.release)
	var crashedOnes []*instance

	// The truth can change during the run (a recreate fault adds events
	// when it fires): its final state is taken anew when it does.
	var truthSeen *history.History
	final := map[string]string{}
	finalState := func() map[string]string {
		if h := srv.Truth(); h != truthSeen {
			truthSeen, final = h, finalRVs(h, res)
		}
		return final
	}
	fired, delivered := 0, 0
	var snaps []storeSnapshot
	step := tick
	dog := DefaultWatchdog
	if s.Watchdog > 0 {
		dog = s.Watchdog
	}
	// end is when the run stops looking: the watchdog, or the live bound
	// after the last fault fired, within the watchdog plus twice the bound.
	end := func() time.Duration {
		retryAt := time.Duration(-1) // when the target may retry work that failed
		if s.Target.RetryBound > 0 {
			if due, pending, known := cur.Load().probe.nextRetry(); !known {
				if w := bound.lastWriteAt(); w >= 0 {
					retryAt = w + s.Target.RetryBound
				}
			} else if pending {
				retryAt = due + retrySlack
			}
		}
		return runEnd(dog, obs.LastFaultAt, obs.LiveBound, retryAt, s.Target.RetryBound)
	}
	var lookedAt time.Duration
	for {
		synctest.Wait()
		now := time.Since(start)
		lookedAt = now
		w.look(now)
		if w.late.Load() {
			obs.OutOfTime = true
			break // past the run's real-time deadline: it is judged nothing
		}
		if w.givenUp() {
			break // given up on a spin that has ended since: the run ends
		}
		if in := cur.Load(); in != nil {
			if at, ok := in.exited(); ok && s.Target.Container {
				// A container that exited is restarted by the kubelet after
				// its backoff, cold, as after a crash.
				if restartAt := at + containerBackoff(len(obs.Exits)); now < restartAt {
					if now >= end() {
						break
					}
					select {
					case <-time.After(min(restartAt, end()) - now):
					case <-ended:
					}
					continue
				}
				in.crash(now)
				crashedOnes = append(crashedOnes, in)
				obs.Exits = append(obs.Exits, observe.Exit{At: at, RestartedAt: now, Err: in.err.Error()})
				srv.ForgetListings()
				bound.freshInstance()
				startInstance(ctx, s, transport, start, s.Cache, &cur, wake, w.release)
				obs.SyncedAt, snaps, delivered, step = -1, nil, 0, tick
				continue
			}
			if at, ok := in.crashed(); ok {
				// A fresh instance starts, cold; the crashed one's
				// requests fail from now on, and it is stopped with
				// the run.
				crashedOnes = append(crashedOnes, in)
				obs.Crashes = append(obs.Crashes, at)
				srv.ForgetListings()
				bound.freshInstance()
				startInstance(ctx, s, transport, start, s.Cache, &cur, wake, w.release)
				obs.SyncedAt, snaps, delivered, step = -1, nil, 0, tick
				continue
			}
			if at, ok := in.stopping(); ok {
				// A stopped instance runs its graceful shutdown. Once its Run has
				// returned (or the grace is over: it did not stop), it is cut off and a
				// fresh instance starts, cold.
				select {
				case <-in.done:
				default:
					if now-at < observe.StopGrace {
						select {
						case <-in.done:
						case <-time.After(tick):
						}
						continue
					}
					obs.NotStopped = true
				}
				in.crash(now)
				crashedOnes = append(crashedOnes, in)
				obs.Restarts = append(obs.Restarts, at)
				srv.ForgetListings()
				w.stopping.Store(false)
				bound.freshInstance()
				startInstance(ctx, s, transport, start, s.Cache, &cur, wake, w.release)
				obs.SyncedAt, snaps, delivered, step = -1, nil, 0, tick
				continue
			}
		}
		probe := cur.Load().probe
		changed := false
		if obs.SyncedAt < 0 && probe.HasSynced() {
			obs.SyncedAt = now
			changed = true
		}
		if n := srv.FiredCount(); n > fired {
			fired = n
			obs.LastFaultAt = now
			changed = true
		}
		// A target that reports its deliveries changes its store only with one:
		// every goroutine is blocked here, so every notification of a change has
		// been made. One that does not is looked at each time.
		n := probe.deliveryCount()
		if n != delivered || n == 0 {
			if rvs, err := probe.storeRVs(); err == nil && (len(snaps) == 0 || !maps.Equal(snaps[len(snaps)-1].rvs, rvs)) {
				snaps = append(snaps, storeSnapshot{at: now, rvs: rvs})
				changed = true
			}
		}
		if n != delivered {
			delivered = n
			changed = true
		}
		caughtUp := obs.SyncedAt >= 0 && len(snaps) > 0 && maps.Equal(snaps[len(snaps)-1].rvs, finalState()) && srv.ExhaustedOf(res) && srv.Spent() && probe.isSettled()
		quietAt := acts.quietAt(bound.lastAt() + quietEnd)
		if caughtUp && now >= quietAt && !s.FullRun {
			obs.EndedEarly = true
			break
		}
		bound.checkWrites()
		if now >= end() || bound.tripped() || acts.failed() != "" {
			break // looked last at or after the end, at the first broken behaviour bound, or at an actor that failed
		}
		// Look often while the target is busy, and ever less often while
		// nothing happens: a quiet run costs tens of looks, not thousands.
		// Caught up, it looks next when it has been quiet long enough (a
		// request meanwhile is a change the next look sees).
		switch {
		case caughtUp && now < quietAt:
			step = quietAt - now
		case changed:
			step = tick
		default:
			step = min(2*step, maxTick)
		}
		select {
		case <-time.After(min(step, end()-now)):
		case <-ended:
		}
	}
	in := cur.Load()
	probe := in.probe
	obs.Unsettled = !obs.EndedEarly && obs.LastFaultAt >= 0 && lookedAt-obs.LastFaultAt < obs.LiveBound
	obs.Store, obs.BadStore = probe.storeAgainst(finalObjects(srv.Truth(), res), omitting(s.Target.StoreOmits))
	obs.Requests, obs.HotLoop, obs.BoundEnd = bound.report()
	// What fired is what fired while the run looked. A frame the replay still
	// sends while the stopped target's connections close fires in whatever
	// order the goroutines end in.
	obs.Fired = srv.Fired()
	w.stopping.Store(true)
	w.look(time.Since(start))
	stoppedAt := time.Since(start)
	acts.stop()
	cancel()
	close(stopped)
	for _, old := range crashedOnes {
		old.failures(obs)
	}
	select {
	case <-in.done:
		// Give the goroutines the target started (and the replayer's) a moment of
		// virtual time to end. Those still blocked after it are left over, and
		// counted when the bubble ends.
		time.Sleep(observe.StopGrace)
		if in.panic != nil {
			obs.Panics = append(obs.Panics, fmt.Sprint(in.panic))
			obs.PanicSites = append(obs.PanicSites, in.panicSite)
			if obs.FirstPanicAt < 0 || in.panicAt < obs.FirstPanicAt {
				obs.FirstPanicAt = in.panicAt
			}
		}
		if at, ok := in.exited(); ok && s.Target.Container && at < stoppedAt {
			// it exited, and the run ended within the kubelet's backoff
			obs.Exits = append(obs.Exits, observe.Exit{At: at, RestartedAt: -1, Err: in.err.Error()})
		} else if in.err != nil && !errors.Is(in.err, context.Canceled) {
			noteRunError(obs, in.err)
		}
	case <-time.After(observe.StopGrace):
		obs.NotStopped = true
	}
	acts.wait(t, w, obs, stoppedAt)
	// Virtual time has moved past the grace. What follows is the harness's own
	// work (judging, writing a reproducer), held to the run's spin bound, not
	// the stop bound (w.work(false) is deferred).
	w.work(true)
	obs.Deliveries = probe.Deliveries()
	// The keys told before the first notification made once the target had
	// synced. A later one flagged not synced read HasSynced before the
	// registration learnt that its informer had synced. From client-go v0.36 a
	// processorListener's watchSynced goroutine tells its SingleFileTracker so,
	// apart from the goroutine running the handlers. So its flag is a race of
	// goroutines at one instant, not a fact of the run.
	initial := map[string]bool{}
	for _, d := range obs.Deliveries {
		if d.Synced {
			break
		}
		initial[d.Key] = true
	}
	obs.InitialDelivered = len(initial)

	// The writes first: the served history read after them holds every
	// write they list.
	log, logged := srv.Writes()
	obs.Writes, obs.WritesLogged = log, logged
	if _, model := srv.(modelReplay); model {
		obs.Servings, obs.ServingsLogged = served.servings(), true
	}
	obs.Served = srv.Truth()
	truth, ok := obs.Served.Log(res)
	if !ok {
		w.errorf(t, "truth: got no log of %s, want one", res.Resource)
		return obs
	}
	obs.TruthLog = truth
	probe.mu.Lock()
	if len(probe.panics) > 0 && (obs.FirstPanicAt < 0 || probe.firstPanic < obs.FirstPanicAt) {
		obs.FirstPanicAt = probe.firstPanic
	}
	obs.Panics = append(obs.Panics, probe.panics...)
	obs.PanicSites = append(obs.PanicSites, probe.panicSites...)
	obs.Errors = append(obs.Errors, probe.errs...)
	obs.Views = probe.views
	obs.Listings = probe.listings
	obs.Exposed = probe.exposed
	probe.mu.Unlock()
	obs.EndedAt = time.Since(start)
	if obs.SyncedAt >= 0 {
		// The target's first store.Replace was of the first complete
		// listing the replay served: that is the state it synced to.
		obs.SyncedRV, _ = srv.FirstListing(res)
	}
	final = finalState()
	// Converged at the start of the final stretch in which the store
	// equals the truth's final state (Observation.ConvergedAt).
	for i := len(snaps) - 1; i >= 0 && maps.Equal(snaps[i].rvs, final); i-- {
		obs.ConvergedAt = snaps[i].at
	}
	return obs
}
