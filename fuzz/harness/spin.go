package harness

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/internal/site"
	"github.com/lwreplay/lwreplay/fuzz/observe"
)

// DefaultSpinBound is how long, in real time, a run may go without a look
// (every goroutine of its bubble blocked) before it is given up as
// spinning. It is far longer than a look takes on the largest cassettes.
//
// Spin bounds are the one place a run's verdict rests on real time.
// A goroutine that loops without blocking never lets virtual time advance,
// so only a clock outside the bubble sees it. Two things keep a loaded
// machine from passing for a spin:
//   - a bound is passed only once the process has also used that much CPU
//     time since the last look (other processes' load does not count);
//   - the harness's own work after the run (writing a reproducer) is held
//     to the run's bound, not StopSpinBound.
//
// docs/fuzzing.md gives the figures measured on a loaded machine.
const DefaultSpinBound = 60 * time.Second

// StopSpinBound is the spin bound once the run (or a fault) has stopped
// the target. Winding down takes a look in milliseconds: on a 2-core
// machine at load 20 to 26, over 3,800 runs, 59 ms at the 99th percentile
// and 0.41 s at most. So a stopped target that keeps the clock still this
// long is spinning. A spin at stop is common (controller-runtime's start-up
// loop), and each costs a fuzzer this much.
const StopSpinBound = 2 * time.Second

// DeadlineGrace is how long past its Spec.Deadline a run that has not
// looked since is waited for. Then Observe returns without it, its
// goroutines left running, as a spin's are. Ending at a look takes
// milliseconds (see StopSpinBound).
const DeadlineGrace = time.Second

// spinWatch is what a run's bubble tells the goroutine outside it that
// watches for a spin:
//   - a count of its looks, and the virtual time of the last;
//   - whether it has stopped the target;
//   - whether the harness is doing its own work after the run;
//   - its bubble's id.
type spinWatch struct {
	looks    atomic.Int64
	lookedAt atomic.Int64 // virtual time of the last look, ns
	stopping atomic.Bool
	working  atomic.Bool  // the harness's own work after the run: held to the run's bound
	late     atomic.Bool  // the run's deadline has passed: it ends at its next look
	bubble   atomic.Value // string
	fired    atomic.Value // func() []faults.Firing: the replay's, once it exists

	// known are the sites of known busy loops at stop (Spec.KnownSpins).
	known []string

	// clock, when set, replaces realClock (tests).
	clock func() (wall, cpu time.Duration)
	// running, when set, replaces the running stacks of the run's bubble
	// (tests).
	running func() string
	// reader reads the run's goroutines, paced by their cost.
	reader stackReader

	// release is made outside the bubble and closed once the run gives its
	// target up (giveUp; Env.GivenUp). nil: never.
	release     chan struct{}
	releaseOnce sync.Once

	// mu guards abandoned: Observe has returned without the run. The
	// run's test may have completed since, and a failure of a completed
	// test panics the process (testing's "Fail in goroutine after … has
	// completed"): so an abandoned run fails nothing.
	mu        sync.Mutex
	abandoned bool
}

// abandon marks the run as one Observe returned without. A failure the
// run has begun ends first, while its test still runs.
func (w *spinWatch) abandon() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.abandoned = true
}

// fail runs fail (which fails t) unless the run was abandoned.
func (w *spinWatch) fail(fail func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.abandoned {
		fail()
	}
}

// errorf is t.Errorf, unless the run was abandoned.
func (w *spinWatch) errorf(t *testing.T, format string, args ...any) {
	t.Helper()
	w.fail(func() { t.Errorf(format, args...) })
}

// giveUp closes w.release: the run's goroutines learn it was given up.
func (w *spinWatch) giveUp() {
	w.releaseOnce.Do(func() {
		if w.release != nil {
			close(w.release)
		}
	})
}

// givenUp reports whether the run was given up.
func (w *spinWatch) givenUp() bool {
	select {
	case <-w.release:
		return true
	default:
		return false
	}
}

// KnownSpinAfter is how long a stopped run goes without a look before
// the watcher asks whether it is in a known busy loop (in wall and CPU
// time) or deadlock (in wall time) of Spec.KnownSpins. Seen there at two
// ticks, the run is given up: a stopped target that looks at all does so
// in milliseconds (see StopSpinBound). One running at such a loop stays
// in it until its caches sync, which a stopped manager's never do; a
// deadlock never moves. So the look comes early: each such loop of a
// fuzzed input burns a core until it is given up.
const KnownSpinAfter = 20 * time.Millisecond

// knownSpinTick is the watcher's tick when a run has known busy loops.
const knownSpinTick = 10 * time.Millisecond

// ReleaseWait is how long, in real time, a run given up on a spin waits
// for its goroutines to end once told (Env.GivenUp). A target whose wait
// ends on it (crtarget's cache) lets controller-runtime's busy loop end,
// and the run with it. Any other spin is left running, as before.
const ReleaseWait = time.Second

// released waits, once the run is given up, for its goroutines to end
// (finished), for wait at most. A deadlock that giving up did not break
// is not waited out: the same lock waits with nothing running,
// KnownSpinAfter later, can never move.
func (w *spinWatch) released(finished <-chan struct{}, spin *observe.Spin, wait time.Duration) {
	end := time.NewTimer(wait)
	defer end.Stop()
	tick := time.NewTicker(knownSpinTick)
	defer tick.Stop()
	start := time.Now()
	for {
		select {
		case <-finished:
			return
		case <-end.C:
			return
		case <-tick.C:
		}
		if spin.Locked && time.Since(start) >= KnownSpinAfter && w.reader.due(time.Now()) {
			id, _ := w.bubble.Load().(string)
			if lockWaitsOf(w.reader.stacks(id)) == spin.Stack {
				return
			}
		}
	}
}

// realClock returns the wall time (monotonic, from an arbitrary start) and
// the CPU time the process has used. cpu is -1 where the platform does not
// say.
func realClock() (wall, cpu time.Duration) {
	return time.Since(clockStart), processCPU()
}

// clockStart is realClock's origin.
var clockStart = time.Now()

// now reads the watch's clock.
func (w *spinWatch) now() (wall, cpu time.Duration) {
	if w.clock != nil {
		return w.clock()
	}
	return realClock()
}

// work marks the harness's own work after the run begun (on) or done.
// It is a finite job, so it is held to the run's bound, not StopSpinBound.
// Both count as a look.
func (w *spinWatch) work(on bool) {
	w.working.Store(on)
	w.looks.Add(1)
}

// passed reports whether a bound has passed since the last look. That is
// wall time, and the process's CPU time where the platform says: a process
// a loaded machine starves has not used it.
func passed(bound, wall, cpu time.Duration) bool {
	return wall >= bound && (cpu < 0 || cpu >= bound)
}

// look records a look at virtual time at.
func (w *spinWatch) look(at time.Duration) {
	w.lookedAt.Store(int64(at))
	w.looks.Add(1)
}

// watch waits, in real time, until finished closes (nil) or the run goes
// bound without a look (see DefaultSpinBound): then it returns the spin.
// Once deadline (when set) has passed, it marks the run late. When the run
// has not finished DeadlineGrace after that, watch returns late true.
func (w *spinWatch) watch(finished <-chan struct{}, bound time.Duration, deadline time.Time) (spin *observe.Spin, late bool) {
	period := max(min(bound/20, 250*time.Millisecond), time.Millisecond)
	if !deadline.IsZero() {
		period = min(period, 50*time.Millisecond)
	}
	if len(w.known) > 0 {
		period = min(period, knownSpinTick)
	}
	tick := time.NewTicker(period)
	defer tick.Stop()
	last := w.looks.Load()
	sinceWall, sinceCPU := w.now()
	stuck := ""   // the lock waits seen at the last tick, when nothing ran
	knownAt := "" // the known busy loop run at the last tick
	for {
		select {
		case <-finished:
			return nil, false
		case <-tick.C:
		}
		if !deadline.IsZero() {
			if now := time.Now(); now.After(deadline.Add(DeadlineGrace)) {
				return nil, true
			} else if now.After(deadline) {
				w.late.Store(true)
			}
		}
		wall, cpu := w.now()
		if n := w.looks.Load(); n != last {
			last, sinceWall, sinceCPU, stuck, knownAt = n, wall, cpu, "", ""
			continue
		}
		d, used := wall-sinceWall, cpu-sinceCPU
		if cpu < 0 {
			used = -1
		}
		working := w.working.Load()
		// A bubble whose goroutines all wait, some on a lock, is never idle: a
		// sync.Mutex wait is not one synctest sees through. So its clock stands
		// still with nothing running. Looked at twice a tick apart, the same waits
		// are a deadlock, not slowness. At a known deadlock of a stopped run
		// (Spec.KnownSpins) they are looked at from KnownSpinAfter on.
		lockLook := d >= min(bound, lockWaitAfter)
		knownStop := w.stopping.Load() && !working && len(w.known) > 0 // a stopped run with known loops
		waitLook := !working && (lockLook || knownStop && d >= KnownSpinAfter)
		loopLook := knownStop && passed(KnownSpinAfter, d, used)
		if !loopLook {
			knownAt = "" // the loop must be seen at two looks in a row
		}
		// One read of the run's goroutines serves both looks; reads are
		// paced by their cost (stackReader), a look without one waits.
		if (waitLook || loopLook) && w.reader.due(time.Now()) {
			id, _ := w.bubble.Load().(string)
			gs := w.reader.stacks(id)
			if waitLook {
				waits := lockWaitsOf(gs)
				at := site.OfStack(waits)
				if waits != "" && waits == stuck && (lockLook || slices.Contains(w.known, at)) {
					spin := &observe.Spin{At: time.Duration(w.lookedAt.Load()), Stopping: w.stopping.Load(), After: d, Stack: waits, Locked: true,
						OnTime: timeWaitIn(gs)}
					if !lockLook {
						spin.Known = at
					}
					return spin, false
				}
				stuck = waits
			}
			if loopLook {
				stack := w.runningOf(gs)
				at := site.OfStack(stack)
				if at != "" && at == knownAt {
					return &observe.Spin{At: time.Duration(w.lookedAt.Load()), Stopping: true, After: d, Stack: stack, Known: at}, false
				}
				knownAt = ""
				if slices.Contains(w.known, at) {
					knownAt = at
				}
			}
		}
		limit := bound
		if w.stopping.Load() && !working {
			limit = min(bound, StopSpinBound)
		}
		if passed(limit, d, used) {
			id, _ := w.bubble.Load().(string)
			return &observe.Spin{At: time.Duration(w.lookedAt.Load()), Stopping: w.stopping.Load(), After: d, Stack: w.runningOf(w.reader.stacks(id))}, false
		}
	}
}

// runningOf returns the stacks of gs (the run's goroutines) that are
// running or runnable (not blocked), each trimmed; w.running's when set.
func (w *spinWatch) runningOf(gs []string) string {
	if w.running != nil {
		return w.running()
	}
	var out []string
	for _, g := range gs {
		header, _, _ := strings.Cut(g, "\n")
		if strings.Contains(header, "[running") || strings.Contains(header, "[runnable") {
			out = append(out, trimStack(g))
		}
	}
	return strings.Join(out, "\n\n")
}

// lockWaitAfter is how long without a look a run goes before the watcher
// looks for goroutines waiting on a lock with nothing running.
const lockWaitAfter = time.Second

// lockWaitsOf returns the stacks of gs (a run's goroutines) waiting on a
// sync.Mutex or sync.RWMutex, when none runs and some wait; "" otherwise.
// The stacks are sorted and trimmed: goroutine headers lose their numbers
// and wait times, so that two looks compare.
func lockWaitsOf(gs []string) string {
	var waits []string
	for _, g := range gs {
		header, rest, _ := strings.Cut(g, "\n")
		switch {
		case strings.Contains(header, "[running") || strings.Contains(header, "[runnable"):
			return ""
		case strings.Contains(header, "[sync.Mutex.Lock") || strings.Contains(header, "[sync.RWMutex.Lock") || strings.Contains(header, "[sync.RWMutex.RLock"):
			state, _, _ := strings.Cut(header[strings.Index(header, "[")+1:], ",")
			waits = append(waits, trimStack("goroutine ["+strings.TrimSuffix(state, "]")+"]:\n"+pastLock(rest)))
		}
	}
	sort.Strings(waits)
	return strings.Join(waits, "\n\n")
}

// timerWaits are the functions that wait on a timer of their own in a
// select: a goroutine blocked there, its first frame past the runtime's,
// waits on virtual time.
var timerWaits = []string{
	// a request waiting out its latency in the in-process transport
	// before the replay answers it
	"github.com/lwreplay/lwreplay/replayer/internal/inproc.(*Transport).RoundTrip(",
	// client-go's client-side throttle (rest.Config's QPS and Burst:
	// flowcontrol's token bucket)
	"golang.org/x/time/rate.(*Limiter).wait(",
}

// timeWaitIn reports whether one of stacks (a bubble's goroutines) waits
// on virtual time: asleep, or in one of timerWaits.
func timeWaitIn(stacks []string) bool {
	for _, g := range stacks {
		header, rest, _ := strings.Cut(g, "\n")
		if strings.Contains(header, "[sleep") {
			return true
		}
		at := pastLock(rest)
		for _, w := range timerWaits {
			if strings.HasPrefix(at, w) {
				return true
			}
		}
	}
	return false
}

// pastLock returns frames (a goroutine's stack without its header) from
// the first frame outside the runtime and sync on: the code that waits.
func pastLock(frames string) string {
	lines := strings.Split(frames, "\n")
	for len(lines) >= 2 && (strings.HasPrefix(lines[0], "runtime.") || strings.HasPrefix(lines[0], "internal/") || strings.HasPrefix(lines[0], "sync.")) {
		lines = lines[2:]
	}
	return strings.Join(lines, "\n")
}

// lateObservation is what a run left at its deadline observed: that it
// ran out of time, and the faults that had fired. It is judged nothing.
func lateObservation(s Spec, w *spinWatch) *observe.Observation {
	obs := &observe.Observation{Resource: s.Resource, Gates: effectiveGates(s.Gates, s.WatchList), SyncedAt: -1, LastFaultAt: -1,
		ConvergedAt: -1, FirstPanicAt: -1, LiveBound: s.LiveBound, EndedAt: time.Duration(w.lookedAt.Load()), Unsettled: true, OutOfTime: true}
	if fired, ok := w.fired.Load().(func() []faults.Firing); ok {
		obs.Fired = fired()
	}
	return obs
}

// spinObservation is what a run given up spinning observed: its spin and
// the faults that had fired (read from the replay under its lock). It
// holds nothing else; the rest stayed with its goroutines.
func spinObservation(s Spec, spin *observe.Spin, w *spinWatch) *observe.Observation {
	obs := &observe.Observation{Resource: s.Resource, Gates: effectiveGates(s.Gates, s.WatchList), SyncedAt: -1, LastFaultAt: -1,
		ConvergedAt: -1, FirstPanicAt: -1, LiveBound: s.LiveBound, EndedAt: spin.At, Unsettled: true, Spin: spin}
	if fired, ok := w.fired.Load().(func() []faults.Firing); ok {
		obs.Fired = fired()
	}
	return obs
}
