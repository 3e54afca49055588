package harness

import (
	"sync"
	"testing"
	"time"
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
			finished := make(chan struct{})
			got := make(chan bool, 1)
			go func() { spin, _ := w.watch(finished, bound, time.Time{}); got <- spin != nil }()
			for clock.readCount() < 1 { // the watch has read its start
				time.Sleep(time.Millisecond)
			}
			clock.set(tc.wall, tc.cpu)
			if !tc.spin {
				for n := clock.readCount(); clock.readCount() < n+5; { // five ticks see the clock set
					time.Sleep(time.Millisecond)
				}
				close(finished)
			}
			if spun := <-got; spun != tc.spin {
				t.Errorf("got spin %v, want %v", spun, tc.spin)
			}
		})
	}
}
