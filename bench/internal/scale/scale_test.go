package scale

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	if code, ok := ChildMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// result returns a Result of n initial objects and 1,000 events. Its
// load took rss bytes at peak, for a largest state of 100 MiB
// decoded. It served to synced in syncMs, against 100 ms of decoding.
// It replayed at replayRate events/s, against 10,000 decoding alone.
func result(n, rss, syncMs, replayRate float64) Result {
	ch := func(f Figures) Child { return Child{Figures: f} }
	return Result{Cassette: Cassette{Name: "c"}, Children: map[string]Child{
		Idle.String():           {Figures: Figures{}, MaxRSS: 20 << 20},
		Load.String():           {Figures: Figures{"objects": n, "events": 1000}, MaxRSS: int64(rss)},
		State.String():          ch(Figures{"bytes": 100 << 20, "objects": n}),
		ServeList.String():      ch(Figures{"ms": syncMs, "listen_ms": syncMs / 2, "objects": n, "serve_rss": 300 << 20}),
		ServeWatchList.String(): ch(Figures{"ms": syncMs, "listen_ms": syncMs / 2, "objects": n}),
		DecodeList.String():     ch(Figures{"ms": 100, "objects": n}),
		Replay.String():         ch(Figures{"events": 1000, "replay_s": 2000 / replayRate, "decode_s": 0.2, "rounds": 2}),
		Recorder.String():       ch(Figures{"cpu_off": 2, "cpu_on": 2.5, "events": 1000, "rounds": 3}),
	}}
}

func TestRows(t *testing.T) {
	tests := []struct {
		name   string
		r      Result
		ratios []float64 // load, LIST, WatchList, replay, recorder
		target []string  // "" for none
		met    []bool
	}{
		{"rows - 100k objects, targets met - pass", result(100000, 250<<20, 150, 9000),
			[]float64{2.5, 1.5, 1.5, 0.9, 1.25}, []string{"≤ 3", "≤ 2", "≤ 2", "≥ 0.8", ""}, []bool{true, true, true, true, false}},
		{"rows - 100k objects, targets missed - fail", result(100000, 400<<20, 300, 7000),
			[]float64{4, 3, 3, 0.7, 1.25}, []string{"≤ 3", "≤ 2", "≤ 2", "≥ 0.8", ""}, []bool{false, false, false, false, false}},
		{"rows - 10k objects, no sync target - pass", result(10000, 250<<20, 300, 9000),
			[]float64{2.5, 3, 3, 0.9, 1.25}, []string{"≤ 3", "", "", "≥ 0.8", ""}, []bool{true, false, false, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := Rows([]Result{tt.r}, DefaultTargets)
			if len(rows) != len(tt.ratios) {
				t.Fatalf("got %d rows, want %d", len(rows), len(tt.ratios))
			}
			for i, r := range rows {
				if d := r.Ratio - tt.ratios[i]; d > 1e-9 || d < -1e-9 {
					t.Errorf("%s: got ratio %v, want %v", r.Measurement, r.Ratio, tt.ratios[i])
				}
				if r.Target != tt.target[i] || r.Met != tt.met[i] {
					t.Errorf("%s: got target %q met %v, want %q met %v", r.Measurement, r.Target, r.Met, tt.target[i], tt.met[i])
				}
			}
		})
	}
}

func TestRowsSubset(t *testing.T) {
	tests := []struct {
		name string
		drop []Measure
		want []string // the rows' measurements
	}{
		{"rows - every measurement - pass", nil,
			[]string{"load: peak RSS", "serve → synced, LIST", "serve → synced, WatchList", "in-process replay", "recorder CPU, 1000-event watch"}},
		{"rows - no replay or recorder - pass", []Measure{Replay, Recorder},
			[]string{"load: peak RSS", "serve → synced, LIST", "serve → synced, WatchList"}},
		{"rows - no LIST decoded: no sync rows - pass", []Measure{DecodeList},
			[]string{"load: peak RSS", "in-process replay", "recorder CPU, 1000-event watch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := result(100000, 250<<20, 150, 9000)
			for _, m := range tt.drop {
				delete(r.Children, m.String())
			}
			var got []string
			for _, row := range Rows([]Result{r}, DefaultTargets) {
				got = append(got, row.Measurement)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got rows %q, want %q", got, tt.want)
			}
			if err := r.check(); err != nil {
				t.Errorf("got check error %v, want none", err)
			}
		})
	}
}

func TestTable(t *testing.T) {
	var b strings.Builder
	if err := Table(&b, Rows([]Result{result(100000, 400<<20, 150, 9000)}, DefaultTargets)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	for _, want := range []string{
		"| load: peak RSS | c | 400 MiB (an idle child: 20 MiB) | 100 MiB: largest state decoded (100000 objects) | 4.00 | ≤ 3 | **no** |",
		"| serve → synced, LIST | c | 150 ms (listening at 75 ms; serve's peak RSS 300 MiB) | 100 ms: decode the initial LIST (100000 objects) | 1.50 | ≤ 2 | yes |",
		"| in-process replay | c | 9000 events/s (1000 events, 2 rounds) | 10000 events/s: decode the watch bytes alone | 0.90 | ≥ 0.8 | yes |",
		"| recorder CPU, 1000-event watch | c | +25.0% (2.50 s CPU, 3 rounds) | 2.00 s CPU: the same watches without recorder | 1.25 | — | — |",
	} {
		found := false
		for _, l := range lines {
			found = found || l == want
		}
		if !found {
			t.Errorf("table - row - fail: got\n%s\nwant a line %s", b.String(), want)
		}
	}
	if len(lines) != 7 {
		t.Errorf("table - lines - fail: got %d lines, want 7 (header, rule, 5 rows)", len(lines))
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		edit func(r Result)
		want string // "" for no error
	}{
		{"check - counts agree - pass", func(Result) {}, ""},
		{"check - LIST decoded short - fail", func(r Result) { r.Children["decode-list"].Figures["objects"] = 9 }, "the LIST decoded holds 9 objects"},
		{"check - replay short - fail", func(r Result) { r.Children["replay"].Figures["events"] = 999 }, "replay handled 999 events"},
		{"check - informers' initial lists differ - fail", func(r Result) { r.Children["serve-watchlist"].Figures["objects"] = 99 }, "serve-watchlist: the informers' initial lists hold 99 objects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := result(100, 1, 1, 1)
			tt.edit(r)
			err := r.check()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("got error %v, want none", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrMeasure)):
				t.Errorf("got error %v, want ErrMeasure saying %q", err, tt.want)
			}
		})
	}
}

func TestMeasureNames(t *testing.T) {
	for _, m := range Measures {
		got, err := ParseMeasure(m.String())
		if err != nil || got != m {
			t.Errorf("measure - %s - pass: got %v, %v, want %v", m, got, err, m)
		}
	}
	if _, err := ParseMeasure("nonesuch"); !errors.Is(err, ErrMeasure) {
		t.Errorf("measure - unknown - fail: got error %v, want ErrMeasure", err)
	}
	if got := Measure(99).String(); got != "Measure(99)" {
		t.Errorf("measure - out of range - pass: got %q, want Measure(99)", got)
	}
}

func TestRunChild(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	_, err = runChild(context.Background(), []string{self}, Job{Measure: Load, Cassette: filepath.Join(t.TempDir(), "missing.yaml")}, &stderr)
	if !errors.Is(err, ErrMeasure) || !strings.Contains(err.Error(), "load") {
		t.Errorf("child - missing cassette - fail: got error %v, want ErrMeasure naming load", err)
	}
	if !strings.Contains(stderr.String(), "missing.yaml") {
		t.Errorf("child - missing cassette - fail: got stderr %q, want it naming missing.yaml", stderr.String())
	}
	c, err := runChild(context.Background(), []string{self}, Job{Measure: Idle}, &stderr)
	if err != nil || len(c.Figures) != 0 {
		t.Errorf("child - idle - pass: got %v, %v, want no figures and no error", c, err)
	}
	if rusageMeasured && c.MaxRSS <= 0 {
		t.Errorf("child - idle - pass: got peak RSS %d, want > 0", c.MaxRSS)
	}
}

func TestLineWatch(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   bool
	}{
		{"line watch - line in one write - pass", []string{"serving on x\nkubeconfig: /tmp/k\n"}, true},
		{"line watch - line split across writes - pass", []string{"serving on x\nkube", "config: /tmp/k", "\ntry"}, true},
		{"line watch - line not ended - pass", []string{"kubeconfig: /tmp/k"}, false},
		{"line watch - prefix mid-line - pass", []string{"see kubeconfig: /tmp/k\n"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &lineWatch{prefix: "kubeconfig: ", seen: make(chan struct{})}
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write: got %d, %v, want %d, nil", n, err, len(s))
				}
			}
			got := false
			select {
			case <-w.seen:
				got = true
			default:
			}
			if got != tt.want {
				t.Errorf("got seen %v, want %v", got, tt.want)
			}
		})
	}
}
