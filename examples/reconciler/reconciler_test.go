//go:debug randseednop=0

package reconciler

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// cassettes are the shipped recordings of real configmaps.
var cassettes = fuzz.Glob("../../cassettes/real-configmaps-*.yaml")

// target runs the reconciler in a controller-runtime manager.
func target(name string, opts ...Option) fuzz.Target {
	return crtarget.Target(name, "the children reconciler of examples/reconciler", func(mgr manager.Manager) error {
		return New(mgr.GetClient(), mgr.GetAPIReader(), opts...).SetupWithManager(mgr, crtarget.ControllerOptions())
	})
}

// ErrChildren says a parent has no child or more than one.
var ErrChildren = errors.New("a parent without exactly one child")

// oneChildPerParent is the reconciler's promise, judged on the served
// final state. Every parent configmap has exactly one child it controls.
// (A child of a parent the history deleted is left: the replay runs no
// garbage collector.) A parent created again under the name of one the
// history deleted may end with its predecessor's child instead. (The
// reconciler made it before the delete, and finds it by name.) A
// cluster's garbage collector deletes that child, and the reconciler,
// woken by it, makes the parent's own. So such a parent is not judged.
var oneChildPerParent = fuzz.NewInvariant("one-child-per-parent",
	"every parent configmap of the final state controls exactly one child configmap",
	func(truth *history.Log, _ *fuzz.Observation) error {
		final := truth.StateAt(truth.End())
		live := map[string]bool{}
		for _, o := range final {
			live[o.UID] = true
		}
		children := map[string][]string{} // parent uid → child keys
		orphans := map[string]bool{}      // parent key → it has a child of a dead predecessor
		for _, o := range final {
			if o.Labels[ChildLabel] == "" {
				continue
			}
			owners := controllers(o)
			for _, uid := range owners {
				children[uid] = append(children[uid], o.Key())
			}
			if len(owners) > 0 && !slices.ContainsFunc(owners, func(uid string) bool { return live[uid] }) {
				orphans[o.Namespace+"/"+o.Labels[ChildLabel]] = true
			}
		}
		var errs []error
		for _, o := range final {
			if o.Labels[ChildLabel] != "" {
				continue
			}
			if got := children[o.UID]; len(got) != 1 && !(len(got) == 0 && orphans[o.Key()]) {
				sort.Strings(got)
				errs = append(errs, fmt.Errorf("%w: parent %s (uid %s): got children %v, want one", ErrChildren, o.Key(), o.UID, got))
			}
		}
		return errors.Join(errs...)
	})

// controllers returns the uids of o's controlling owners.
func controllers(o *history.Object) []string {
	var m struct {
		Metadata struct {
			OwnerReferences []struct {
				UID        string `json:"uid"`
				Controller *bool  `json:"controller"`
			} `json:"ownerReferences"`
		} `json:"metadata"`
	}
	if json.Unmarshal(o.Raw, &m) != nil {
		return nil
	}
	var out []string
	for _, r := range m.Metadata.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			out = append(out, r.UID)
		}
	}
	return out
}

// TestCrashBetweenWrites runs the reconciler on every shipped cassette and
// both client paths. It is crashed right after each of its first four
// writes (crash-after-write:write=N); a fresh manager starts with cold
// caches. The correct reconciler keeps one child per parent whatever the
// crash. The planted bug (WithGenerateName) makes a second child when the
// crash falls between a child's create and the parent's report. The user's
// invariant finds it. With no invariant of the user's, same-outcome finds
// it: the end state against fault-free reference runs.
func TestCrashBetweenWrites(t *testing.T) {
	tests := []struct {
		name    string
		opts    []Option
		wantBug bool
	}{
		{name: "reconciler - children named after their parent - one child per parent after any crash - pass"},
		{name: "reconciler - children under generated names - a crash after a create makes a second child - fail", opts: []Option{WithGenerateName()}, wantBug: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: cassettes, Target: target("children", tc.opts...), Extra: []fuzz.Invariant{oneChildPerParent}})
			if err != nil {
				t.Fatal(err)
			}
			found := 0
			for i := range c.Cassettes() {
				for _, wl := range []bool{false, true} {
					for n := 0; n <= 4; n++ {
						text := ""
						if n > 0 {
							text = fmt.Sprintf("crash-after-write:write=%d", n)
						}
						plan, err := faults.ParseText(text)
						if err != nil {
							t.Fatal(err)
						}
						where := fmt.Sprintf("cassette %d, WatchList %v, plan %q", i, wl, text)
						out := c.CheckPlan(t, i, wl, plan)
						if got, want := len(out.Observation.Crashes), min(n, 1); got != want {
							t.Fatalf("%s: got crashes %v, want %d", where, out.Observation.Crashes, want)
						}
						// the writes alternate: a child's create (odd), its
						// parent's report (even); the bug needs a crash after
						// a create
						wantFail := tc.wantBug && n%2 == 1
						err = out.Results[oneChildPerParent.Name]
						if err != nil {
							found++
						}
						switch {
						case wantFail && !errors.Is(err, ErrChildren):
							t.Errorf("%s: got %v, want ErrChildren (a second child)", where, err)
						case !wantFail && err != nil:
							t.Errorf("%s: got %v, want one child per parent", where, err)
						}
						// the differential oracle finds the bug without
						// the user's invariant: an extra child against the
						// fault-free reference runs
						if err := out.Results["same-outcome"]; wantFail != errors.Is(err, oracle.ErrDiffersFromReference) {
							t.Errorf("%s: same-outcome: got %v, want a difference %v", where, err, wantFail)
						}
						for name, err := range out.Results {
							if err != nil && name != oneChildPerParent.Name && name != "same-outcome" {
								t.Errorf("%s: %s: got %v, want it to hold", where, name, err)
							}
						}
						if out.Failed() != wantFail {
							t.Errorf("%s: got failed %v, want %v:\n%s", where, out.Failed(), wantFail, out.Report)
						}
					}
				}
			}
			t.Logf("runs that broke one-child-per-parent: %d", found)
		})
	}
}

// TestOneChildPerParent judges the reconciler's invariant on final states
// built by hand. A parent created again under a deleted one's name, whose
// child is still its predecessor's, is not a failure. (A cluster's garbage
// collector deletes that child, and the reconciler makes the parent's
// own.) A parent with no child, or two, is.
func TestOneChildPerParent(t *testing.T) {
	parent := func(uid string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: types.UID(uid)}}
	}
	controller := true
	child := func(name, owner string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("u-" + name), Labels: map[string]string{ChildLabel: "p"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "p", UID: types.UID(owner), Controller: &controller}}}}
	}
	tests := []struct {
		name    string
		changes func(b *synth.Builder)
		want    error
	}{
		{name: "one child per parent - a parent and its child - pass", changes: func(b *synth.Builder) { b.Add(parent("p1")); b.Add(child("p-child", "p1")) }},
		{name: "one child per parent - a parent created again, its predecessor's child left (no garbage collector) - pass", changes: func(b *synth.Builder) {
			b.Add(parent("p1"))
			b.Add(child("p-child", "p1"))
			b.Delete(parent("p1"))
			b.Add(parent("p2"))
		}},
		{name: "one child per parent - a parent with no child - fail", changes: func(b *synth.Builder) { b.Add(parent("p1")) }, want: ErrChildren},
		{name: "one child per parent - a parent with two children - fail", changes: func(b *synth.Builder) {
			b.Add(parent("p1"))
			b.Add(child("p-child", "p1"))
			b.Add(child("p-other", "p1"))
		}, want: ErrChildren},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := synth.NewBuilder()
			tt.changes(b)
			h, err := b.History()
			if err != nil {
				t.Fatalf("History: got %v, want nil", err)
			}
			err = oneChildPerParent.Check(&fuzz.Observation{TruthLog: h.Logs[0]})
			if (tt.want == nil) != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("one-child-per-parent: got %v, want %v", err, tt.want)
			}
		})
	}
}
