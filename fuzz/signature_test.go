package fuzz

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

func TestSignatureText(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    oracle.Signature
		wantErr bool
	}{
		{name: "signature - invariants and a site - pass", text: "no-request-storm,progress @ k8s.io/client-go/tools/cache.(*Reflector).watchList",
			want: oracle.Signature{Invariants: []string{"no-request-storm", "progress"}, Site: "k8s.io/client-go/tools/cache.(*Reflector).watchList"}},
		{name: "signature - invariants only - pass", text: "converged", want: oracle.Signature{Invariants: []string{"converged"}}},
		{name: "signature - no invariant - fail", text: " @ main.f", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := oracle.ParseSignature(tc.text)
			if tc.wantErr {
				if !errors.Is(err, oracle.ErrSignature) {
					t.Fatalf("ParseSignature(%q): got error %v, want %v", tc.text, err, oracle.ErrSignature)
				}
				return
			}
			if err != nil || got.String() != tc.want.String() || got.String() != strings.TrimSpace(tc.text) {
				t.Errorf("ParseSignature(%q): got %q, %v, want %q", tc.text, got, err, tc.want)
			}
		})
	}
}

func TestKnownMatches(t *testing.T) {
	storm := oracle.KnownFindings[0]
	site := storm.Site
	tests := []struct {
		name string
		sig  oracle.Signature
		want bool
	}{
		{"known - storm and hot loop at the reflector - pass", oracle.Signature{Invariants: []string{"no-request-storm", "progress", "no-hot-loop"}, Site: site}, true},
		{"known - progress alone at the reflector (a stream slower than the timeout) - pass", oracle.Signature{Invariants: []string{"progress"}, Site: site}, true},
		{"known - a user invariant broken beside the storm - not known, fail", oracle.Signature{Invariants: []string{"no-request-storm", "mirror-matches-truth"}, Site: site}, false},
		{"known - a storm of another site - not known, fail", oracle.Signature{Invariants: []string{"no-request-storm"}, Site: "example.com/ctrl.(*C).relist"}, false},
		{"known - no site - not known, fail", oracle.Signature{Invariants: []string{"progress"}}, false},
		{"known - nothing broken - not known, fail", oracle.Signature{Site: site}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := storm.Matches(tc.sig); got != tc.want {
				t.Errorf("Matches(%s): got %v, want %v", tc.sig, got, tc.want)
			}
		})
	}
	versions := []struct {
		v    string
		want bool
	}{{"v0.35.10", true}, {"v0.37.2", true}, {"v0.38.0", false}, {"v0.3", false}}
	for _, tc := range versions {
		t.Run(fmt.Sprintf("known - client-go %s - %v", tc.v, tc.want), func(t *testing.T) {
			if got := storm.In(tc.v); got != tc.want {
				t.Errorf("In(%s): got %v, want %v", tc.v, got, tc.want)
			}
		})
	}
}

func TestKnownOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want []string // known finding names
		err  error
	}{
		{name: "known options - default - the shipped ones - pass", want: []string{"kubernetes#140890"}},
		{name: "known options - a shipped one reported - none - pass", opts: Options{ReportKnown: []string{"kubernetes#140890"}}},
		{name: "known options - a user's - shipped and the user's - pass",
			opts: Options{Known: []oracle.Known{{Name: "mine", Invariants: []string{"converged"}}}}, want: []string{"kubernetes#140890", "mine"}},
		{name: "known options - reporting an unknown name - fail", opts: Options{ReportKnown: []string{"nope"}}, err: ErrKnown},
		{name: "known options - a user's without invariants - fail", opts: Options{Known: []oracle.Known{{Name: "mine"}}}, err: ErrKnown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := knownOf(tc.opts)
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("knownOf: got error %v, want %v", err, tc.err)
			}
			var names []string
			for _, k := range got {
				names = append(names, k.Name)
			}
			if fmt.Sprint(names) != fmt.Sprint(tc.want) {
				t.Errorf("knownOf: got %v, want %v", names, tc.want)
			}
		})
	}
}

// panicsInAdd is a handler whose add writes to a nil map.
type panicsInAdd struct{ m map[string]int }

func (p *panicsInAdd) OnAdd(obj any, _ bool) { p.m["x"]++ }
func (p *panicsInAdd) OnUpdate(_, _ any)     {}
func (p *panicsInAdd) OnDelete(any)          {}

// TestPanicSite runs a target whose handler panics: the run's signature
// names the handler's method as where it went wrong, whatever the plan.
func TestPanicSite(t *testing.T) {
	target := Target{Name: "panicky", Doc: "a handler that writes a nil map", Run: func(ctx context.Context, env *Env) error {
		lw, err := env.ListerWatcher(&corev1.ConfigMap{})
		if err != nil {
			return err
		}
		inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
		if _, err := env.Probe.AddEventHandler(inf, &panicsInAdd{}); err != nil {
			return err
		}
		inf.RunWithContext(ctx)
		return nil
	}}
	const want = "clean-stop @ github.com/lwreplay/lwreplay/fuzz.(*panicsInAdd).OnAdd"
	for _, plan := range []string{"", "close-watch:after=2", "delay:ms=3000,at=1"} {
		t.Run("panic site - plan "+plan+" - one signature - pass", func(t *testing.T) {
			obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Plan: mustPlan(t, plan), Target: target, Level: Wire})
			out := &Outcome{Results: oracle.Judge(obs, "clean-stop")}
			if got := out.Signature().String(); got != want {
				t.Errorf("signature: got %q, want %q (panics %q, sites %q)", got, want, obs.Panics, obs.PanicSites)
			}
		})
	}
}

// TestScopeUnsettled shows one rule for every invariant: an end-state one,
// built-in or the user's, is not judged on an unsettled run and the
// outcome says why; one on behaviour along the way is judged.
func TestScopeUnsettled(t *testing.T) {
	never := func(*history.Log, *oracle.Observation) error { return errors.New("my index differs from the truth") }
	endState := oracle.NewInvariant("my-index", "my index equals the truth's final state", never)
	along := oracle.NewInvariant("my-order", "my handler saw keys in order", never, oracle.WithScope(oracle.Along))
	tests := []struct {
		name          string
		inv           oracle.Invariant
		unsettled     bool
		wantBroken    bool
		wantNotJudged bool
	}{
		{name: "scope - user end-state invariant, settled run - judged, fail", inv: endState, wantBroken: true},
		{name: "scope - user end-state invariant, unsettled run - not judged, pass", inv: endState, unsettled: true, wantNotJudged: true},
		{name: "scope - user along invariant, unsettled run - judged, fail", inv: along, unsettled: true, wantBroken: true},
		{name: "scope - built-in converged, unsettled run - not judged, pass", inv: mustInvariant(t, "converged"), unsettled: true, wantNotJudged: true},
		{name: "scope - built-in no-time-travel, unsettled run - judged, pass", inv: mustInvariant(t, "no-time-travel"), unsettled: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := goodObservation(t)
			delete(o.Store, "ns/a")
			o.Unsettled, o.LastFaultAt, o.EndedAt, o.LiveBound = tc.unsettled, 30*60e9, 31*60e9, oracle.DefaultLiveBound
			err, why := oracle.JudgeOne(tc.inv, o)
			if (err != nil) != tc.wantBroken {
				t.Errorf("result: got %v, want broken %v", err, tc.wantBroken)
			}
			if (why != "") != tc.wantNotJudged || (tc.wantNotJudged && !strings.Contains(why, "unsettled run")) {
				t.Errorf("not judged: got %q, want not judged %v (saying the run was unsettled)", why, tc.wantNotJudged)
			}
		})
	}
}

func mustInvariant(t *testing.T, name string) oracle.Invariant {
	t.Helper()
	inv, ok := oracle.LookupInvariant(name)
	if !ok {
		t.Fatalf("LookupInvariant(%q): got none", name)
	}
	return inv
}
