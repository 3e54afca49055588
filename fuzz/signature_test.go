package fuzz

import (
	"context"
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// TestReportKnownEnv checks that LWREPLAY_REPORT_KNOWN adds its names to
// ReportKnown, once each, beside those the options hold.
func TestReportKnownEnv(t *testing.T) {
	t.Setenv(ReportKnownEnv, " mine, kubernetes#140890,,mine")
	got := reportKnownFromEnv(Options{ReportKnown: []string{"kubernetes#140890"}}).ReportKnown
	if want := []string{"kubernetes#140890", "mine"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("report known from env - two names, one held already - pass: got %v, want %v", got, want)
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
		{name: "known options - a user's reported - the shipped ones - pass",
			opts: Options{Known: []oracle.Known{{Name: "mine", Invariants: []string{"converged"}}}, ReportKnown: []string{"mine"}}, want: []string{"kubernetes#140890"}},
		{name: "known options - reporting an unknown name - fail", opts: Options{ReportKnown: []string{"nope"}}, err: ErrKnown},
		{name: "known options - a user's without invariants - fail", opts: Options{Known: []oracle.Known{{Name: "mine"}}}, err: ErrKnown},
		{name: "known options - a user's with details of another invariant - fail",
			opts: Options{Known: []oracle.Known{{Name: "mine", Invariants: []string{"converged"}, Details: map[string][]string{"same-outcome": {"configmaps data.v"}}}}}, err: ErrKnown},
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

// TestKnownSpins checks which known findings' sites a campaign's runs are
// given up at sooner (harness.Spec.KnownSpins): busy loops, no-spin at a
// site, each once; not a known finding the user asked to have reported.
func TestKnownSpins(t *testing.T) {
	loop := oracle.Known{Name: "loop", Site: "example.com/op.(*Group).Start", Invariants: []string{"no-spin"}}
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{name: "known spins - none of no-spin - none - pass", opts: Options{Known: []oracle.Known{{Name: "stop", Site: "example.com/op.stop", Invariants: []string{"clean-stop"}}}}},
		{name: "known spins - a busy loop, twice, and one of no site - its site once - pass",
			opts: Options{Known: []oracle.Known{loop, {Name: "again", Site: loop.Site, Invariants: []string{"no-spin", "clean-stop"}}, {Name: "nowhere", Invariants: []string{"no-spin"}}}},
			want: []string{loop.Site}},
		{name: "known spins - a busy loop reported - none - pass", opts: Options{Known: []oracle.Known{loop}, ReportKnown: []string{"loop"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			known, err := knownOf(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := knownSpins(known); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("knownSpins: got %v, want %v", got, tc.want)
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
