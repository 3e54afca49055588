package mutate

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
)

const realCassette = "../cassettes/real-configmaps-pods-watchlist.yaml"

func mustPlan(t *testing.T, specs ...string) faults.Plan {
	t.Helper()
	var p faults.Plan
	for _, s := range specs {
		d, err := faults.ParseFault(s)
		if err != nil {
			t.Fatalf("ParseFault(%q): %v", s, err)
		}
		p.Decisions = append(p.Decisions, d)
	}
	return p
}

// requestKey is what identifies a request for verbatim replay.
func requestKey(t *testing.T, i cassette.Interaction) string {
	u, err := url.Parse(i.URL)
	if err != nil {
		t.Fatalf("url %q: %v", i.URL, err)
	}
	q := u.Query()
	q.Del("timeoutSeconds")
	return i.Method + " " + u.Path + "?" + q.Encode()
}

func loadAll(t *testing.T, paths []string) []cassette.Interaction {
	t.Helper()
	var out []cassette.Interaction
	for _, p := range paths {
		f, err := cassette.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f.Interactions...)
	}
	return out
}

// byRequest groups interactions by request, in order.
func byRequest(t *testing.T, its []cassette.Interaction) map[string][]cassette.Interaction {
	m := map[string][]cassette.Interaction{}
	for _, i := range its {
		k := requestKey(t, i)
		m[k] = append(m[k], i)
	}
	return m
}

func TestMutateReplaysTheSame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		plan  []string
		fires bool
	}{
		{"mutate - no fault - reproducer replays the same - pass", nil, false},
		{"mutate - legal close-watch - reproducer replays the same - pass", []string{"close-watch:after=2,watch=1"}, true},
		{"mutate - breaking drop-event - reproducer replays the same - pass", []string{"drop-event:frame=3,watch=1"}, true},
	}
	files, err := cassette.LoadAll(realCassette)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				res, err := Run(ctx, files, filepath.Join(dir, "repro.yaml"), Options{Plan: mustPlan(t, tc.plan...), Timeout: 10 * time.Minute, Settle: time.Minute})
				if err != nil {
					t.Fatalf("Run: got error %v, want none", err)
				}
				if got := len(res.Fired) > 0; got != tc.fires {
					t.Fatalf("fired: got %v (%v), want %v", got, res.Fired, tc.fires)
				}
				repro, err := cassette.LoadAll(res.Files...)
				if err != nil {
					t.Fatalf("load reproducer: %v", err)
				}
				for _, f := range repro {
					for n, i := range f.Interactions {
						if i.Replay != cassette.ReplayVerbatim {
							t.Fatalf("reproducer interaction %d: got replay mode %q, want %q", n, i.Replay, cassette.ReplayVerbatim)
						}
					}
				}
				again, err := Replay(ctx, repro, filepath.Join(dir, "again.yaml"), Options{Timeout: 10 * time.Minute, Settle: time.Minute})
				if err != nil {
					for k, v := range byRequest(t, loadAll(t, res.Files)) {
						t.Logf("reproducer: %d × %s", len(v), k)
					}
					for k, v := range byRequest(t, loadAll(t, again.Files)) {
						t.Logf("replay: %d × %s", len(v), k)
					}
					t.Fatalf("Replay: got error %v, want none", err)
				}
				want := byRequest(t, loadAll(t, res.Files))
				if len(want) < 3 {
					t.Fatalf("reproducer: got %d distinct requests, want discovery, lists and watches", len(want))
				}
				checkSameAnswers(t, byRequest(t, loadAll(t, again.Files)), want)
			})
		})
	}
}

// checkSameAnswers checks that got holds the same requests as want, each
// answered the same (code and body), in the same order.
func checkSameAnswers(t *testing.T, got, want map[string][]cassette.Interaction) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("distinct requests: got %d, want %d", len(got), len(want))
	}
	for k, ws := range want {
		gs := got[k]
		if len(gs) != len(ws) {
			t.Errorf("%s: got %d answers, want %d", k, len(gs), len(ws))
			continue
		}
		for n := range ws {
			if gs[n].Code != ws[n].Code || !bytes.Equal(gs[n].Body, ws[n].Body) {
				t.Errorf("%s answer %d: got %d %q, want %d %q", k, n, gs[n].Code, clip(gs[n].Body), ws[n].Code, clip(ws[n].Body))
			}
		}
	}
}

func TestMutateRefusesUnrecordable(t *testing.T) {
	t.Parallel()
	files, err := cassette.LoadAll(realCassette)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		specs []string
		fault string // the fault the error names
	}{
		{"mutate - garble-frame at frame 3 - fail", []string{"garble-frame:frame=3"}, "garble-frame"},
		{"mutate - garble-frame after a recordable fault - fail", []string{"delay:ms=100,at=9", "garble-frame:at=12"}, "garble-frame"},
	}
	for _, f := range faults.Registry {
		if f.Unrecordable {
			tests = append(tests, struct {
				name  string
				specs []string
				fault string
			}{"mutate - unrecordable " + f.Name + " - fail", []string{f.Name}, f.Name})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), files, filepath.Join(t.TempDir(), "r.yaml"), Options{Plan: mustPlan(t, tt.specs...)})
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tt.fault+":") {
				t.Errorf("error: got %v, want %v naming %s", err, ErrUnsupported, tt.fault)
			}
		})
	}
}

func TestCheckPlan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		specs []string
		want  error
	}{
		{"check plan - no fault - pass", nil, nil},
		{"check plan - recordable faults - pass", []string{"close-watch:after=2", "delay:ms=100,at=9"}, nil},
		{"check plan - garble-frame after a recordable fault - fail", []string{"delay:ms=100,at=9", "garble-frame:at=12"}, ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := CheckPlan(mustPlan(t, tt.specs...)); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Errorf("CheckPlan: got %v, want %v", err, tt.want)
			}
		})
	}
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
