//go:debug randseednop=0

package children

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// controllerTarget runs a Controller on the run's clientset: its informer
// reads the replay and its writes are answered by it.
func controllerTarget(name string, opts ...Option) fuzz.Target {
	return fuzz.Target{Name: name, Doc: "the children controller of this example", Run: func(ctx context.Context, env *fuzz.Env) error {
		cs, err := env.Clientset()
		if err != nil {
			return err
		}
		c := New(cs, opts...)
		if _, err := env.Probe.AddEventHandler(c.Informer(), nil); err != nil {
			return err
		}
		env.Probe.SetSynced(c.HasSynced)
		env.Probe.SetStore(c.Informer().GetStore().List)
		return c.Run(ctx)
	}}
}

// childrenMatchParents is a user invariant: at the end every parent
// configmap of the truth has its child, holding its name, and names it in
// its annotation, and every child has its parent.
var childrenMatchParents = fuzz.NewInvariant("children-match-parents",
	"every parent configmap has its child and names it; every child has its parent",
	func(truth *history.Log, _ *fuzz.Observation) error {
		final := map[string]*history.Object{}
		for _, o := range truth.StateAt(truth.End()) {
			final[o.Key()] = o
		}
		var errs []error
		for key, o := range final {
			if o.Labels[ChildLabel] != "" {
				if _, ok := final[strings.TrimSuffix(key, childSuffix)]; !ok {
					errs = append(errs, fmt.Errorf("child %s: got no parent, want it deleted", key))
				}
				continue
			}
			if _, ok := final[key+childSuffix]; !ok {
				errs = append(errs, fmt.Errorf("parent %s: got no child, want %s", key, key+childSuffix))
			}
			if got := o.Annotations[ChildAnnotation]; got != o.Name+childSuffix || o.Annotations[ReconciledAnnotation] != "true" {
				errs = append(errs, fmt.Errorf("parent %s: annotations got child %q, reconciled %q, want %q, true", key, got, o.Annotations[ReconciledAnnotation], o.Name+childSuffix))
			}
		}
		return errors.Join(errs...)
	})

// cassettes are the shipped cassettes of configmaps.
var cassettes = fuzz.Glob("../../cassettes/real-configmaps-*.yaml")

// FuzzChildren fuzzes the controller: its seeds (each cassette, no fault,
// both client paths) converge, with every child and annotation in the
// truth.
func FuzzChildren(f *testing.F) {
	fuzz.Run(f, fuzz.Options{Cassettes: cassettes, Target: controllerTarget("children"), Extra: []fuzz.Invariant{childrenMatchParents}})
}

// TestStaleRetryFound runs the planted controller on a seed (no fault):
// its second update of a parent is at the resourceVersion its first
// replaced, the replay answers 409 Conflict as kube-apiserver does, and
// the retry loop is reported; the fixed controller converges.
func TestStaleRetryFound(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target fuzz.Target
		want   bool
	}{
		{"children - fixed controller, stale LIST - converges - pass", controllerTarget("children"), false},
		{"children - stale retry planted, stale LIST - reported - fail", controllerTarget("children-stale", WithStaleRetry()), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: cassettes[:1], Target: tc.target, Extra: []fuzz.Invariant{childrenMatchParents}})
			if err != nil {
				t.Fatal(err)
			}
			out := c.Check(t, []byte{0, 0})
			if out.Failed() != tc.want {
				t.Errorf("failed: got %v, want %v; report:\n%s", out.Failed(), tc.want, out.Report)
			}
			t.Logf("signature %s; report:\n%s", out.Signature(), out.Report)
		})
	}
}

// TestDeterminismWrites re-runs inputs of the writing controller —
// seeds and plans of legal faults — and wants one verdict and one story
// each time: where a write lands, and what it answers, is a function of
// the input.
func TestDeterminismWrites(t *testing.T) {
	c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: cassettes, Target: controllerTarget("children"), Extra: []fuzz.Invariant{childrenMatchParents}})
	if err != nil {
		t.Fatal(err)
	}
	reruns := 20
	if testing.Short() {
		reruns = 3
	}
	for _, in := range [][]byte{{0, 0}, {0, 1}, {1, 0}, {2, 1}, {0, 0, 0x83, 0x91}, {1, 1, 0xa5, 0x88, 0xc2}} {
		t.Run(fmt.Sprintf("determinism - writing controller, input %q, %d runs - one verdict - pass", in, reruns), func(t *testing.T) {
			var want string
			for k := range reruns {
				out := c.Check(t, in)
				got := fmt.Sprintf("failed %v\nfired: %s\nreport: %s", out.Failed(), faults.Story(out.Observation.Fired), out.Report)
				if k == 0 {
					want = got
					continue
				}
				if got != want {
					t.Fatalf("run %d: got\n%s\nwant (run 0)\n%s", k, got, want)
				}
			}
		})
	}
}
