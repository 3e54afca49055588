package replayer

import (
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

var stormRes = history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// stormStep is a request ending at a time: its note, with at an offset.
type stormStep struct {
	at time.Duration
	n  stormNote
}

// burst returns count requests like n, every apart from start on.
func burst(count int, start, every time.Duration, n stormNote) []stormStep {
	out := make([]stormStep, count)
	for i := range out {
		out[i] = stormStep{at: start + time.Duration(i)*every, n: n}
	}
	return out
}

// seq joins step lists.
func seq(parts ...[]stormStep) []stormStep {
	var out []stormStep
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var (
	earlyWatchList = stormNote{kind: kindWatchList, early: true}
	plainList      = stormNote{kind: kindList}
	plainWatch     = stormNote{kind: kindWatch}
)

// backoffCycles is a client-go reflector failing over and over at the
// fastest its backoff allows (0.8 s doubling to 30 s, no jitter). Each
// cycle is a refused WatchList, the LIST it falls back to and a WATCH.
func backoffCycles(total time.Duration) []stormStep {
	var out []stormStep
	delay := 800 * time.Millisecond
	for at := time.Duration(0); at < total; at += delay {
		out = append(out, stormStep{at, earlyWatchList}, stormStep{at, plainList}, stormStep{at, plainWatch})
		delay = min(2*delay, 30*time.Second)
	}
	return out
}

// restRetries is a LIST retried by client-go's REST client 10 times a
// second apart (Retry-After: 1), then a WATCH, and again after each
// backoff.
func restRetries(total time.Duration) []stormStep {
	var out []stormStep
	delay := 800 * time.Millisecond
	for at := time.Duration(0); at < total; {
		for i := 0; i <= 10; i++ {
			out = append(out, stormStep{at, plainList})
			at += time.Second
		}
		out = append(out, stormStep{at, plainWatch})
		at += delay
		delay = min(2*delay, 30*time.Second)
	}
	return out
}

// withHead returns steps whose head moves forward every k-th request.
func withHead(steps []stormStep, k int) []stormStep {
	out := append([]stormStep(nil), steps...)
	head := 0
	for i := range out {
		if i%k == k-1 {
			head++
		}
		out[i].n.head = head
	}
	return out
}

func TestStormDetector(t *testing.T) {
	t.Parallel()
	live := stormNote{kind: kindWatch, live: true}
	page := stormNote{kind: kindList, continued: true}
	tests := []struct {
		name     string
		steps    []stormStep
		episodes int    // storms begun, 0: none
		want     string // the last storm's String, "" for none
	}{
		{"storm - WatchList restarted at once, each cut before initial-events-end - fail",
			burst(1200, 0, 2*time.Millisecond, earlyWatchList), 1,
			"1,200 WatchList requests for configmaps in 2.398s, each ending before initial-events-end; no progress"},
		{"storm - 30 requests at once, the limit - pass", burst(30, 0, 0, earlyWatchList), 0, ""},
		{"storm - 31 requests at once, one over the limit - fail", burst(31, 0, 0, earlyWatchList), 1,
			"31 WatchList requests for configmaps at once, each ending before initial-events-end; no progress"},
		{"storm - 31 requests spread over more than the window - pass", burst(31, 0, 334*time.Millisecond, plainList), 0, ""},
		{"storm - reflector backoff at its fastest, 10 min - pass", backoffCycles(10 * time.Minute), 0, ""},
		{"storm - REST client retries a second apart between backoffs, 10 min - pass", restRetries(10 * time.Minute), 0, ""},
		{"storm - rate-limited loop, 5 requests a second - fail", burst(100, 0, 200*time.Millisecond, plainWatch), 1,
			"100 WATCH requests for configmaps in 19.8s; no progress"},
		{"storm - immediate re-watch after each clean close, events each time - pass", burst(5000, 0, time.Millisecond, live), 0, ""},
		{"storm - immediate re-watch after each clean close, head moving - pass", withHead(burst(5000, 0, time.Millisecond, plainWatch), 1), 0, ""},
		{"storm - one re-watch after a clean close with nothing new - pass", seq(burst(1, 0, 0, plainList), burst(1, 0, 0, plainWatch), burst(1, 5*time.Minute, 0, plainWatch)), 0, ""},
		{"storm - progress every 30 requests resets the window - pass", withHead(burst(3000, 0, time.Millisecond, earlyWatchList), 30), 0, ""},
		{"storm - progress, then 31 requests with none - fail",
			seq(withHead(burst(30, 0, 0, earlyWatchList), 30), burst(31, time.Second, 0, stormNote{kind: kindWatchList, early: true, head: 1})), 1,
			"31 WatchList requests for configmaps at once, each ending before initial-events-end; no progress"},
		{"storm - a first complete listing is progress - pass",
			seq(burst(30, 0, 0, earlyWatchList), burst(1, 0, 0, stormNote{kind: kindList, listed: true}), burst(30, 0, 0, stormNote{kind: kindWatchList, early: true, listed: true})), 0, ""},
		{"storm - a later complete listing is no progress - fail",
			seq(burst(1, 0, 0, stormNote{kind: kindList, listed: true}), burst(31, 0, time.Millisecond, stormNote{kind: kindList, listed: true})), 1,
			"31 LIST requests for configmaps in 30ms; no progress"},
		{"storm - pages of one LIST count once - pass", seq(burst(1, 0, 0, plainList), burst(500, 0, time.Millisecond, page)), 0, ""},
		{"storm - mixed kinds, some WatchLists complete - fail",
			seq(burst(10, 0, 0, earlyWatchList), burst(10, 0, 0, stormNote{kind: kindWatchList}), burst(10, 0, 0, plainList), burst(10, 0, 0, plainWatch)), 1,
			"40 requests for configmaps at once (20 WatchList, 10 LIST, 10 WATCH), 10 WatchList ending before initial-events-end; no progress"},
		{"storm - LIST and WATCH in turn, no WatchList - fail",
			seq(burst(20, 0, 0, plainList), burst(20, 0, 0, plainWatch)), 1,
			"40 requests for configmaps at once (20 LIST, 20 WATCH); no progress"},
		{"storm - a quiet window ends it, a new burst is a new storm - fail",
			seq(burst(40, 0, 0, plainWatch), burst(35, time.Minute, 0, plainWatch)), 2,
			"35 WATCH requests for configmaps at once; no progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newStormDetector(DefaultStormWindow, DefaultStormLimit)
			t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			begun := 0
			var last StormReport
			for _, s := range tt.steps {
				n := s.n
				n.at = t0.Add(s.at)
				if rep, isNew := d.observe(stormRes, n); isNew {
					begun++
					if rep.Episode != begun {
						t.Errorf("storm %d: got episode %d, want %d", begun, rep.Episode, begun)
					}
				}
			}
			if storms := d.storms(t0.Add(tt.steps[len(tt.steps)-1].at)); len(storms) > 0 {
				last = storms[len(storms)-1]
			}
			if begun != tt.episodes {
				t.Errorf("storms begun: got %d (last: %s), want %d", begun, last, tt.episodes)
			}
			got := ""
			if last.Requests > 0 {
				got = last.String()
			}
			if got != tt.want {
				t.Errorf("last storm: got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStormEnds(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name    string
		after   stormNote     // a request after the storm; zero kind with skip: none
		skip    bool          // no request after the storm
		elapsed time.Duration // from the storm's last request to the look
		ongoing bool
	}{
		{"storm end - no request, looked at at once - fail", stormNote{}, true, 0, true},
		{"storm end - no request for a window - pass", stormNote{}, true, DefaultStormWindow, false},
		{"storm end - progress - pass", stormNote{kind: kindWatch, live: true}, false, 0, false},
		{"storm end - one more request with nothing new - fail", plainWatch, false, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newStormDetector(0, 0) // the defaults
			for i := range 31 {
				n := earlyWatchList
				n.at = t0.Add(time.Duration(i) * time.Millisecond)
				d.observe(stormRes, n)
			}
			end := t0.Add(30 * time.Millisecond)
			if !tt.skip {
				n := tt.after
				n.at = end
				d.observe(stormRes, n)
			}
			storms := d.storms(end.Add(tt.elapsed))
			if len(storms) != 1 {
				t.Fatalf("storms: got %d, want 1", len(storms))
			}
			if storms[0].Ongoing != tt.ongoing {
				t.Errorf("ongoing: got %v (%s), want %v", storms[0].Ongoing, storms[0], tt.ongoing)
			}
			if storms[0].Window != DefaultStormWindow || storms[0].Limit != DefaultStormLimit {
				t.Errorf("thresholds: got %s and %d, want %s and %d", storms[0].Window, storms[0].Limit, DefaultStormWindow, DefaultStormLimit)
			}
		})
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1200: "-1,200"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d): got %q, want %q", n, got, want)
		}
	}
}
