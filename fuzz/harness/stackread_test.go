package harness

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestStackReaderPaced checks the spin watcher's reads of a run's
// goroutines are paced by their cost: a read that takes 30 ms (a worker
// holding thousands of goroutines) is made at most once per 300 ms, where
// a watcher at a stopped run with known loops looks every 10 ms.
func TestStackReaderPaced(t *testing.T) {
	const cost, watched = 30 * time.Millisecond, time.Second
	var reads atomic.Int64
	slow := func(string) []string {
		reads.Add(1)
		time.Sleep(cost)
		return nil
	}
	w := &spinWatch{known: []string{"example.com/op.loop"}, running: func() string { return "" }, reader: stackReader{read: slow}}
	w.stopping.Store(true)
	finished := make(chan struct{})
	time.AfterFunc(watched, func() { close(finished) })
	if spin, _ := w.watch(finished, time.Minute, time.Time{}); spin != nil {
		t.Fatalf("stack reads - 30 ms each - no spin: got spin %+v, want none", spin)
	}
	if got, most := reads.Load(), int64(watched/(stackReadGap*cost))+2; got > most || got == 0 {
		t.Errorf("stack reads - 30 ms each, for a second - paced: got %d reads, want 1 to %d", got, most)
	}
}
