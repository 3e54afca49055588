package replayer

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/lwreplay/lwreplay/faults"
)

// pointKinds are the kinds of point an effect has a behaviour for.
var pointKinds = []faults.PointKind{faults.ListPoint, faults.WatchPoint, faults.FramePoint, faults.PlanPoint, faults.WritePoint}

// actsAt reports whether a fault registered at kind p acts at points of
// kind k. A RequestPoint fault acts at LIST and WATCH points, any other at
// its own kind.
func actsAt(p, k faults.PointKind) bool {
	if p == faults.RequestPoint {
		return k == faults.ListPoint || k == faults.WatchPoint
	}
	return p == k
}

// effectProblems lists what keeps table from matching registry:
//   - a fault with no effect;
//   - an effect of no fault;
//   - an effect with no behaviour at a kind of point its fault acts at;
//   - an effect with a behaviour at a kind its fault does not act at.
func effectProblems(registry []faults.Fault, table map[string]effect) []string {
	var out []string
	known := map[string]bool{}
	for _, f := range registry {
		known[f.Name] = true
		e, ok := table[f.Name]
		if !ok {
			out = append(out, fmt.Sprintf("%s: no effect", f.Name))
			continue
		}
		for _, k := range pointKinds {
			switch has, want := e.at(k) != nil, actsAt(f.Point, k); {
			case want && !has:
				out = append(out, fmt.Sprintf("%s: no behaviour at a %s point, where it acts (%s)", f.Name, k, f.Point))
			case has && !want:
				out = append(out, fmt.Sprintf("%s: a behaviour at a %s point, where it does not act (%s)", f.Name, k, f.Point))
			}
		}
	}
	for name := range table {
		if !known[name] {
			out = append(out, fmt.Sprintf("%s: an effect of no registered fault", name))
		}
	}
	sort.Strings(out)
	return out
}

func TestFaultEffectsCoverRegistry(t *testing.T) {
	t.Parallel()
	var b behaviour = func(*pointCtx, faults.Decision) (func() error, bool) { return nil, false }
	tests := []struct {
		name     string
		registry []faults.Fault
		table    map[string]effect
		want     int // problems
	}{
		{"effects - the replayer's table and faults.Registry - pass", faults.Registry, effects, 0},
		{"effects - a LIST fault with a LIST behaviour - pass", []faults.Fault{{Name: "x", Point: faults.ListPoint}}, map[string]effect{"x": {list: b}}, 0},
		{"effects - a request fault at LIST and WATCH points - pass", []faults.Fault{{Name: "x", Point: faults.RequestPoint}}, map[string]effect{"x": {list: b, watch: b}}, 0},
		{"effects - a plan fault at the start - pass", []faults.Fault{{Name: "x", Point: faults.PlanPoint}}, map[string]effect{"x": {plan: b}}, 0},
		{"effects - a fault with no effect - fail", []faults.Fault{{Name: "x", Point: faults.FramePoint}}, map[string]effect{}, 1},
		{"effects - an effect of no fault - fail", nil, map[string]effect{"x": {frame: b}}, 1},
		{"effects - no behaviour at the fault's kind - fail", []faults.Fault{{Name: "x", Point: faults.WatchPoint}}, map[string]effect{"x": {frame: b}}, 2},
		{"effects - a request fault at LIST points only - fail", []faults.Fault{{Name: "x", Point: faults.RequestPoint}}, map[string]effect{"x": {list: b}}, 1},
		{"effects - a behaviour at another kind too - fail", []faults.Fault{{Name: "x", Point: faults.ListPoint}}, map[string]effect{"x": {list: b, plan: b}}, 1},
	}
	for _, f := range faults.Registry {
		one := map[string]effect{}
		if e, ok := effects[f.Name]; ok {
			one[f.Name] = e
		}
		tests = append(tests, struct {
			name     string
			registry []faults.Fault
			table    map[string]effect
			want     int
		}{"effects - " + f.Name + " acts at " + f.Point.String() + " points - pass", []faults.Fault{f}, one, 0})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := effectProblems(tt.registry, tt.table); len(got) != tt.want {
				t.Errorf("problems: got %d %q, want %d", len(got), got, tt.want)
			}
		})
	}
}

// unfiredTargets are the requests TestFaultUnfired makes, in order.
var unfiredTargets = []string{fList0, fPage1, fPage2, fWatchB, fWatchList, fListAll, fList0, fWatch}

// wireOf runs unfiredTargets against a server with opts and returns every
// answer's wire.
func wireOf(t *testing.T, opts ...Option) []byte {
	t.Helper()
	var out bytes.Buffer
	synctest.Test(t, func(t *testing.T) {
		srv := New(smallHistory(t), opts...)
		cont := ""
		for _, target := range unfiredTargets {
			target = strings.ReplaceAll(target, "{continue}", cont)
			a := fetch(t, srv.Transport(), target)
			out.Write(wireResponse(target, a.resp, a.body))
			if i := bytes.Index(a.body, []byte(`"continue":"`)); i >= 0 {
				rest := a.body[i+len(`"continue":"`):]
				cont = string(rest[:bytes.IndexByte(rest, '"')])
			}
		}
		if got := srv.Fired(); len(got) != 0 {
			t.Errorf("fired: got %q, want nothing", firedStrings(got))
		}
	})
	return out.Bytes()
}

func TestFaultUnfired(t *testing.T) {
	t.Parallel()
	want := wireOf(t)
	for _, f := range faults.Registry {
		if f.Point == faults.PlanPoint {
			continue // acts from the start, at no point
		}
		t.Run(f.Name+" - at a point never reached - pass", func(t *testing.T) {
			d := faults.Decision{Fault: f.Name, At: 999}
			got := wireOf(t, WithPlan(faults.Plan{Decisions: []faults.Decision{d}}))
			if !bytes.Equal(got, want) {
				t.Errorf("wire:\ngot\n%s\nwant\n%s", got, want)
			}
		})
	}
	t.Run("no plan - an empty plan changes nothing - pass", func(t *testing.T) {
		if got := wireOf(t, WithPlan(faults.Plan{})); !bytes.Equal(got, want) {
			t.Errorf("wire:\ngot\n%s\nwant\n%s", got, want)
		}
	})
}

func TestFaultNoPlan(t *testing.T) {
	t.Parallel()
	h := smallHistory(t)
	srv := New(h)
	if got := srv.Fired(); got != nil {
		t.Errorf("fired: got %v, want nil", got)
	}
	if got := srv.Served(); got != h {
		t.Errorf("truth: got %p, want the history %p", got, h)
	}
}

func TestFaultHTTPErrorStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		code   int
		ok     bool
		reason string
	}{
		{name: "http-error status - 429 without retryAfterSeconds - pass", code: 429, ok: true, reason: "TooManyRequests"},
		{name: "http-error status - 500 - pass", code: 500, ok: true, reason: "InternalError"},
		{name: "http-error status - 503 - pass", code: 503, ok: true, reason: "ServiceUnavailable"},
		{name: "http-error status - any other error code from a text plan - pass", code: 504, ok: true, reason: "Timeout"},
		{name: "http-error status - 200 is no error - fail", code: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, ok := httpError(tt.code)
			if ok != tt.ok {
				t.Fatalf("ok: got %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if int(st.Code) != tt.code || string(st.Reason) != tt.reason || st.Details != nil && st.Details.RetryAfterSeconds != 0 {
				t.Errorf("status: got %d %s %+v, want %d %s without retryAfterSeconds", st.Code, st.Reason, st.Details, tt.code, tt.reason)
			}
		})
	}
}
