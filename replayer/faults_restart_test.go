package replayer

import (
	"errors"
	"net/http"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// restartStep is one request of a restart case. It is sent at an offset
// of virtual time from the case's start. Its answer is read to its end
// unless it is left open.
type restartStep struct {
	at     time.Duration
	target string
	open   bool     // the watch is read in the background; its transcript is checked at the end
	want   []string // transcript; nil: the request is refused at connect
}

func TestFaultApiserverRestart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		plan  string
		steps []restartStep
		fired []string
	}{
		{
			name: "apiserver-restart - an open watch ends, requests refused while down, the re-watch from before the cache's start gets 410 - pass",
			plan: "apiserver-restart:down=5,at=7",
			steps: []restartStep{
				// the watch's point is 0, its six frames 1 to 6: it idles
				// until its timeout at 5 s, but ends at the restart
				{at: 0, target: fWatch, open: true, want: with(watchFrames, "EOF")},
				{at: time.Second, target: fList0},             // point 7: restarts, refused
				{at: 3 * time.Second, target: fList0},         // still down: refused
				{at: 5900 * time.Millisecond, target: fWatch}, // down until 6 s
				{at: 6 * time.Second, target: fWatch, want: []string{"ERROR 410 too old resource version: 1003 (1009)", "EOF"}},
				{at: 6 * time.Second, target: fList0, want: []string{"LIST rv 1009: ns1/a@1007 ns1/b@1006"}},
			},
			fired: []string{"LIST #1 apiserver-restart: every watch ended, connections refused for 5s, the watch cache starting at rv 1009"},
		},
		{
			// the server's newest state is what its answers reached: the
			// initial state, before any watch moved it on
			name: "apiserver-restart - a watch from the cache's start is served - pass",
			plan: "apiserver-restart:down=1,at=0",
			steps: []restartStep{
				{at: 0, target: fList0},
				{at: time.Second, target: fWatch, want: with(watchFrames, "EOF")},
			},
			fired: []string{"LIST #1 apiserver-restart: every watch ended, connections refused for 1s, the watch cache starting at rv 1003"},
		},
		{
			name: "apiserver-restart - a decision at one point restarts the server once - pass",
			plan: "apiserver-restart:down=0,at=0",
			steps: []restartStep{
				{at: 0, target: fList0},
				{at: 0, target: fList0, want: []string{"LIST rv 1003: ns1/a@1001 ns1/b@1002 ns2/c@1003"}},
				{at: 0, target: fList0, want: []string{"LIST rv 1003: ns1/a@1001 ns1/b@1002 ns2/c@1003"}},
			},
			fired: []string{"LIST #1 apiserver-restart: every watch ended, connections refused for 0s, the watch cache starting at rv 1003"},
		},
		{
			name: "apiserver-restart - held from a point it restarts at every request that reaches one - pass",
			plan: "apiserver-restart:down=1,from=1",
			steps: []restartStep{
				{at: 0, target: fList0, want: []string{"LIST rv 1003: ns1/a@1001 ns1/b@1002 ns2/c@1003"}},
				{at: 0, target: fList0},                       // point 1: restarts
				{at: 500 * time.Millisecond, target: fList0},  // down: reaches no point
				{at: 1500 * time.Millisecond, target: fList0}, // point 2: restarts again
			},
			fired: []string{
				"LIST #2 apiserver-restart: every watch ended, connections refused for 1s, the watch cache starting at rv 1003",
				"LIST #3 apiserver-restart: every watch ended, connections refused for 1s, the watch cache starting at rv 1003",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := mustPlan(t, tc.plan)
			synctest.Test(t, func(t *testing.T) {
				srv := New(smallHistory(t), WithPlan(plan))
				rt := srv.Transport()
				start := time.Now()
				type opened struct {
					step restartStep
					done chan answerText
				}
				var open []opened
				for i, st := range tc.steps {
					time.Sleep(time.Until(start.Add(st.at)))
					if st.open {
						o := opened{step: st, done: make(chan answerText, 1)}
						go func() { o.done <- fetch(t, rt, st.target) }()
						synctest.Wait()
						open = append(open, o)
						continue
					}
					if st.want == nil {
						if err := refused(t, rt, st.target); err != nil {
							t.Errorf("step %d (%s at %s): %v", i, st.target, st.at, err)
						}
						continue
					}
					if got := transcript(fetch(t, rt, st.target), false); !equalStrings(got, st.want) {
						t.Errorf("step %d (%s at %s):\ngot  %q\nwant %q", i, st.target, st.at, got, st.want)
					}
				}
				for _, o := range open {
					a := <-o.done
					if got := transcript(a, false); !equalStrings(got, o.step.want) {
						t.Errorf("open watch %s:\ngot  %q\nwant %q", o.step.target, got, o.step.want)
					}
				}
				if got := firedStrings(srv.Fired()); !equalStrings(got, tc.fired) {
					t.Errorf("fired:\ngot  %q\nwant %q", got, tc.fired)
				}
			})
		})
	}
}

// refused sends target through rt and returns an error unless the
// request failed as a refused dial does.
func refused(t *testing.T, rt http.RoundTripper, target string) error {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, testHost+target, nil)
	if err != nil {
		return err
	}
	resp, err := rt.RoundTrip(req)
	if err == nil {
		resp.Body.Close()
		return errors.New("got an answer " + resp.Status + ", want the connection refused")
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return errors.New("got error " + err.Error() + ", want ECONNREFUSED")
	}
	return nil
}
