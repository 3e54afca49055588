package replayer

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/lwreplay/lwreplay/faults"
)

func TestFaultEffectsCoverRegistry(t *testing.T) {
	t.Parallel()
	for _, f := range faults.Registry {
		t.Run("effects - "+f.Name+" - pass", func(t *testing.T) {
			k, ok := effects[f.Name]
			if !ok {
				t.Fatalf("effect of %s: got none, want one", f.Name)
			}
			if k != f.Point {
				t.Errorf("effect of %s: got at %s points, want %s", f.Name, k, f.Point)
			}
		})
	}
	for name := range effects {
		if _, ok := faults.Lookup(name); !ok {
			t.Errorf("effect %s: got no registry fault, want one", name)
		}
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
	if got := srv.Truth(); got != h {
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
