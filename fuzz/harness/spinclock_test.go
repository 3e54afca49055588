package harness

import (
	"sync"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
)

// fakeClock is a spinWatch clock the test sets, counting its reads.
type fakeClock struct {
	mu        sync.Mutex
	wall, cpu time.Duration
	reads     int
}

func (c *fakeClock) read() (wall, cpu time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	return c.wall, c.cpu
}

func (c *fakeClock) set(wall, cpu time.Duration) {
	c.mu.Lock()
	c.wall, c.cpu = wall, cpu
	c.mu.Unlock()
}

func (c *fakeClock) readCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}

// watchTicks runs w's watch with the run's bound, sets clock to wall and
// cpu once the watch has read its start, and returns the spin it gives.
// When no spin is wanted, the run finishes after five ticks saw the clock
// set. A watch that gives nothing in 30 s fails the test.
func watchTicks(t *testing.T, w *spinWatch, clock *fakeClock, bound, wall, cpu time.Duration, wantSpin bool) *observe.Spin {
	t.Helper()
	finished := make(chan struct{})
	got := make(chan *observe.Spin, 1)
	go func() { spin, _ := w.watch(finished, bound, time.Time{}); got <- spin }()
	for clock.readCount() < 1 { // the watch has read its start
		time.Sleep(time.Millisecond)
	}
	clock.set(wall, cpu)
	if !wantSpin {
		for n := clock.readCount(); clock.readCount() < n+5; { // five ticks see the clock set
			time.Sleep(time.Millisecond)
		}
		close(finished)
	}
	select {
	case spin := <-got:
		return spin
	case <-time.After(30 * time.Second): // a guard: the watch ticks every 250 ms at most
		t.Fatalf("got nothing from the watch in 30 s, want a spin %v", wantSpin)
		return nil
	}
}

// TestSpinWatchClock checks what passes a spin bound: wall time and the
// process's CPU time since the last look. A machine other processes load
// starves the process of CPU: no spin. It checks too that the harness's
// own work after the run is held to the run's bound, not the stop bound.
// The watch's clock is the test's: the verdict rests on counts, not speed.
func TestSpinWatchClock(t *testing.T) {
	const bound = 40 * time.Millisecond // the run's bound; StopSpinBound is larger, so stopping uses it too
	tests := []struct {
		name      string
		stopping  bool
		working   bool
		wall, cpu time.Duration
		spin      bool
	}{
		{name: "spin watch - wall time past the bound, CPU time not (a loaded machine) - no spin - pass", wall: time.Hour, cpu: bound / 2},
		{name: "spin watch - wall and CPU time past the bound - spin - fail", wall: bound, cpu: bound, spin: true},
		{name: "spin watch - wall time past the bound, no CPU time on this platform - spin - fail", wall: bound, cpu: -1, spin: true},
		{name: "spin watch - stopping, past the bound - spin - fail", stopping: true, wall: bound, cpu: bound, spin: true},
		{name: "spin watch - the harness's work after the run, within the run's bound - no spin - pass", stopping: true, working: true, wall: bound / 2, cpu: bound / 2},
		{name: "spin watch - the harness's work after the run, past the run's bound - spin - fail", stopping: true, working: true, wall: bound, cpu: bound, spin: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{}
			if tc.cpu < 0 {
				clock.cpu = -1
			}
			w := &spinWatch{clock: clock.read}
			w.stopping.Store(tc.stopping)
			w.working.Store(tc.working)
			if spun := watchTicks(t, w, clock, bound, tc.wall, tc.cpu, tc.spin) != nil; spun != tc.spin {
				t.Errorf("got spin %v, want %v", spun, tc.spin)
			}
		})
	}
}

// spinLoopStack is a goroutine running controller-runtime#3440's busy loop,
// as runtime.Stack renders it.
const spinLoopStack = `goroutine 7 [running, synctest bubble 1]:
sigs.k8s.io/controller-runtime/pkg/manager.(*runnableGroup).Start.func1()
	/mod/sigs.k8s.io/controller-runtime@v0.23.3/pkg/manager/runnable_group.go:192 +0x1c5
sync.(*Once).doSlow(0xc000214010, 0xc000561e38)
	/go/src/sync/once.go:78 +0xac
sigs.k8s.io/controller-runtime/pkg/manager.(*runnableGroup).Start(0xc000214000, {0x2a8d4e8, 0xc0004a4050})
	/mod/sigs.k8s.io/controller-runtime@v0.23.3/pkg/manager/runnable_group.go:169 +0x77`

// TestSpinWatchKnown checks when a stopped run at a known busy loop
// (Spec.KnownSpins) is given up: KnownSpinAfter past its last look, in
// wall and CPU time, seen running there at two ticks. Anywhere else, or
// before the target is stopped, the spin bounds hold as before. The
// clock and the running stacks are the test's.
func TestSpinWatchKnown(t *testing.T) {
	const loop = "sigs.k8s.io/controller-runtime/pkg/manager.(*runnableGroup).Start"
	const elsewhere = `goroutine 9 [running, synctest bubble 1]:
example.com/op.(*Reconciler).Reconcile(0xc000214000)
	/src/op/reconcile.go:40 +0x1c5`
	tests := []struct {
		name      string
		known     []string
		stopping  bool
		running   string
		wall, cpu time.Duration
		spin      bool
	}{
		{name: "known spin - stopped, at a known busy loop, past KnownSpinAfter - given up - fail", known: []string{loop}, stopping: true, running: spinLoopStack, wall: KnownSpinAfter, cpu: KnownSpinAfter, spin: true},
		{name: "known spin - stopped, at a known busy loop, before KnownSpinAfter - no spin - pass", known: []string{loop}, stopping: true, running: spinLoopStack, wall: KnownSpinAfter / 2, cpu: KnownSpinAfter / 2},
		{name: "known spin - stopped, at a known busy loop, CPU time not past (a loaded machine) - no spin - pass", known: []string{loop}, stopping: true, running: spinLoopStack, wall: time.Minute, cpu: KnownSpinAfter / 2},
		{name: "known spin - stopped, running elsewhere - no spin before StopSpinBound - pass", known: []string{loop}, stopping: true, running: elsewhere, wall: KnownSpinAfter, cpu: KnownSpinAfter},
		{name: "known spin - not stopped, at a known busy loop - no spin - pass", known: []string{loop}, running: spinLoopStack, wall: KnownSpinAfter, cpu: KnownSpinAfter},
		{name: "known spin - stopped, at the loop, no known busy loops - no spin before StopSpinBound - pass", stopping: true, running: spinLoopStack, wall: KnownSpinAfter, cpu: KnownSpinAfter},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{}
			w := &spinWatch{clock: clock.read, known: tc.known, running: func() string { return tc.running }}
			w.stopping.Store(tc.stopping)
			spin := watchTicks(t, w, clock, time.Minute, tc.wall, tc.cpu, tc.spin)
			if (spin != nil) != tc.spin {
				t.Fatalf("got spin %+v, want a spin %v", spin, tc.spin)
			}
			if spin != nil && (!spin.Stopping || spin.Stack != tc.running || spin.Known != loop) {
				t.Errorf("got spin stopping %v at known loop %q with stack %q, want stopping at %q with the loop's stack", spin.Stopping, spin.Known, spin.Stack, loop)
			}
		})
	}
}

// TestReleased checks how long a run given up waits for its goroutines to
// end: a deadlock that stays as it was is not waited out; another spin is
// waited for until its run finishes. (The test's watch has no bubble: its
// lock waits read as none, the same as the spin's.)
func TestReleased(t *testing.T) {
	tests := []struct {
		name   string
		spin   observe.Spin
		finish bool // the run finishes after the give-up
	}{
		{name: "released - a deadlock that stays as it was - not waited out - pass", spin: observe.Spin{Locked: true}},
		{name: "released - a busy loop - waited for until its run finishes - pass", spin: observe.Spin{Stack: "goroutine 1 [running]:"}, finish: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &spinWatch{}
			finished := make(chan struct{})
			done := make(chan struct{})
			go func() { w.released(finished, &tc.spin, time.Hour); close(done) }()
			if tc.finish {
				time.Sleep(3 * KnownSpinAfter) // past the deadlock's look: a busy loop is still waited for
				select {
				case <-done:
					t.Fatalf("got the wait ended before the run finished, want it waited for")
				default:
				}
				close(finished)
			}
			select {
			case <-done:
			case <-time.After(30 * time.Second): // a guard: the wait looks every 25 ms
				t.Fatalf("got the wait still on after 30 s, want it ended")
			}
		})
	}
}
