//go:debug randseednop=0

package children

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// controllerTarget runs a Controller on the run's clientset: its informer
// reads the replay and its writes are answered by it.
func controllerTarget(name string, opts ...Option) fuzz.Target {
	return controllerTargetThen(name, nil, opts...)
}

// controllerTargetThen is controllerTarget calling then with each run's
// controller once it stopped (nil: no call).
func controllerTargetThen(name string, then func(*Controller), opts ...Option) fuzz.Target {
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
		err = c.Run(ctx)
		if then != nil {
			then(c)
		}
		return err
	}}
}

// configMaps is the resource the controller reads and writes.
var configMaps = history.Resource{Version: "v1", Resource: "configmaps"}

// childrenMatchParents is a user invariant, on the end of the configmaps
// the replay served (the recorded ones and the controller's writes).
// Every parent has its child, holding its name, and names it in its
// annotations. Every child has its parent. Where the replay logged the
// controller's writes, what it judges is the controller's doing.
// (Observation.WritesLogged: not a reproducer's verbatim replay.) Every
// child there is one the controller's create stored. Every parent's
// final state is one the controller's write stored.
var childrenMatchParents = fuzz.NewInvariant("children-match-parents",
	"every parent configmap has its child and names it; every child has its parent; the children and the annotations are the controller's writes",
	func(_ *history.Log, o *fuzz.Observation) error {
		if o.Served == nil {
			return fmt.Errorf("%w: no served history", fuzz.ErrNotJudged)
		}
		served, ok := o.Served.Log(configMaps)
		if !ok {
			return fmt.Errorf("%w: the served history holds no configmaps", fuzz.ErrNotJudged)
		}
		created := map[string]bool{} // keys the controller created
		updated := map[string]bool{} // keys the controller stored an update of
		for _, w := range o.Writes {
			if w.Resource.ID() != configMaps.ID() || !w.Stored() {
				continue
			}
			switch w.Verb {
			case "create":
				created[w.Key] = true
			case "update", "patch":
				updated[w.Key] = true
			}
		}
		final := map[string]*history.Object{}
		for _, obj := range served.StateAt(served.End()) {
			final[obj.Key()] = obj
		}
		var errs []error
		for _, key := range slices.Sorted(maps.Keys(final)) {
			obj := final[key]
			if obj.Labels[ChildLabel] != "" {
				if _, ok := final[strings.TrimSuffix(key, childSuffix)]; !ok {
					errs = append(errs, fmt.Errorf("child %s: got no parent, want it deleted", key))
				}
				if o.WritesLogged && !created[key] {
					errs = append(errs, fmt.Errorf("child %s: got no create of the controller's in its writes, want the child its write", key))
				}
				continue
			}
			if _, ok := final[key+childSuffix]; !ok {
				errs = append(errs, fmt.Errorf("parent %s: got no child, want %s", key, key+childSuffix))
			}
			if got := obj.Annotations[ChildAnnotation]; got != obj.Name+childSuffix || obj.Annotations[ReconciledAnnotation] != "true" {
				errs = append(errs, fmt.Errorf("parent %s: annotations got child %q, reconciled %q, want %q, true", key, got, obj.Annotations[ReconciledAnnotation], obj.Name+childSuffix))
			} else if o.WritesLogged && !updated[key] {
				// its final state may be another actor's later change, served onto the annotated parent
				errs = append(errs, fmt.Errorf("parent %s: got its annotations (rv %s) from no update of the controller's, want its annotating update", key, obj.ResourceVersion))
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

// TestStaleRetryFound runs the planted controller on a seed (no fault).
// Its second update of a parent is at the resourceVersion its first
// replaced. The replay answers 409 Conflict as kube-apiserver does, and
// the retry loop is reported. The fixed controller converges.
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

// TestDeterminismWrites re-runs inputs of the writing controller: seeds
// and plans of legal faults. It wants one verdict and one story each
// time. Where a write lands, and what it answers, is a function of the
// input.
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

// servedParents is a served history of configmaps. The parent a/p
// (rv 1001) is recorded, and withQ the parent a/q (1002). Then come,
// as the controller writes them, the child a/p-child (1002 or 1003)
// and the annotated a/p (1003 or 1004).
func servedParents(t *testing.T, withQ bool) *history.History {
	t.Helper()
	b := synth.NewBuilder()
	p := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p"}}
	b.Add(p)
	if withQ {
		b.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "q"}})
	}
	b.Snapshot()
	b.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p-child", Labels: map[string]string{ChildLabel: "true"}},
		Data: map[string]string{"parent": "p"}})
	p.Annotations = map[string]string{ChildAnnotation: "p-child", ReconciledAnnotation: "true"}
	b.Update(p)
	h, err := b.History()
	if err != nil {
		t.Fatalf("history: got error %v, want none", err)
	}
	return h
}

// TestChildrenMatchParents judges the invariant on served histories and
// write logs made up to break each of its rules.
func TestChildrenMatchParents(t *testing.T) {
	withQ, withoutQ := servedParents(t, true), servedParents(t, false)
	cm := history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	createChild := func(rv string) fuzz.Write {
		return fuzz.Write{Verb: "create", Resource: cm, Key: "a/p-child", RVAfter: rv, Code: 201, Event: history.Added}
	}
	annotate := func(before, after string) fuzz.Write {
		return fuzz.Write{Verb: "update", Resource: cm, Key: "a/p", RVBefore: before, RVAfter: after, Code: 200, Event: history.Modified}
	}
	tests := []struct {
		name     string
		served   *history.History
		writes   []fuzz.Write
		verbatim bool     // the replay logged no writes
		want     []string // what the failure says, in order; none: it holds
	}{
		{name: "children match parents - every child and annotation the controller's writes - pass",
			served: withoutQ, writes: []fuzz.Write{createChild("1002"), {Verb: "update", Resource: cm, Key: "a/p", Code: 409, Reason: "Conflict"}, annotate("1001", "1003")}},
		{name: "children match parents - another actor's later change served onto the annotated parent - pass",
			served: withoutQ, writes: []fuzz.Write{createChild("1002"), annotate("1001", "1002")}},
		{name: "children match parents - a parent with no child - fail",
			served: withQ, writes: []fuzz.Write{createChild("1003"), annotate("1001", "1004")},
			want: []string{"parent a/q: got no child, want a/q-child", `parent a/q: annotations got child "", reconciled "", want "q-child", true`}},
		{name: "children match parents - the child and annotation recorded, not written - fail",
			served: withoutQ, writes: []fuzz.Write{{Verb: "create", Resource: cm, Key: "a/p-child", Code: 409, Reason: "AlreadyExists"}},
			want: []string{"parent a/p: got its annotations (rv 1003) from no update of the controller's, want its annotating update",
				"child a/p-child: got no create of the controller's in its writes, want the child its write"}},
		{name: "children match parents - a verbatim replay, no write log - the state alone judged - pass",
			served: withoutQ, verbatim: true},
		{name: "children match parents - a verbatim replay, a parent with no child - fail",
			served: withQ, verbatim: true,
			want: []string{"parent a/q: got no child, want a/q-child", `parent a/q: annotations got child "", reconciled "", want "q-child", true`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, _ := tc.served.Log(configMaps)
			err := childrenMatchParents.Check(&fuzz.Observation{TruthLog: l, Served: tc.served, Writes: tc.writes, WritesLogged: !tc.verbatim})
			if len(tc.want) == 0 {
				if err != nil {
					t.Errorf("check: got %v, want it to hold", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("check: got it held, want %q", tc.want)
			}
			if got := strings.Join(tc.want, "\n"); !strings.HasSuffix(err.Error(), got) {
				t.Errorf("check: got %q, want it to end with %q", err, got)
			}
		})
	}
}
