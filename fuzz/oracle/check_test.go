package oracle_test

import (
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

func TestInvariantsAreDocumented(t *testing.T) {
	t.Parallel()
	kebab := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	seen := map[string]bool{}
	for _, inv := range oracle.Invariants {
		t.Run(inv.Name+" - registry entry - pass", func(t *testing.T) {
			if seen[inv.Name] {
				t.Errorf("name %q: got a duplicate, want unique", inv.Name)
			}
			seen[inv.Name] = true
			if !kebab.MatchString(inv.Name) {
				t.Errorf("name %q: got not kebab-case, want kebab-case", inv.Name)
			}
			if inv.Doc == "" || strings.Contains(inv.Doc, "\n") {
				t.Errorf("Doc: got %q, want one non-empty line", inv.Doc)
			}
			if !strings.Contains(inv.Guarantee, ".go") {
				t.Errorf("Guarantee: got %q, want a promise naming its client-go file", inv.Guarantee)
			}
			if inv.Check == nil {
				t.Errorf("Check: got nil, want a function")
			}
			if got, ok := oracle.LookupInvariant(inv.Name); !ok || got.Name != inv.Name {
				t.Errorf("Lookup(%q): got %q, %v, want it, true", inv.Name, got.Name, ok)
			}
		})
	}
	want := []string{"converged", "no-lost-delete", "no-time-travel", "synced-after-initial", "live", "no-bookmark-object", "consistent-view", "consistent-list", "no-request-storm", "no-write-storm", "no-conflict-loop", "no-create-loop", "progress", "one-leader", "leader-steps-down", "leader-elected", "no-hot-loop", "no-spin", "clean-stop", "same-outcome"}
	if len(oracle.Invariants) != len(want) {
		t.Errorf("Invariants: got %d, want %d", len(oracle.Invariants), len(want))
	}
	for _, n := range want {
		if _, ok := oracle.LookupInvariant(n); !ok {
			t.Errorf("Invariants: got no %q, want it", n)
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	t.Run("check - correct observation, all invariants - pass", func(t *testing.T) {
		got := oracle.Judge(goodObservation(t))
		if len(got) != len(oracle.Invariants) {
			t.Errorf("results: got %d, want %d", len(got), len(oracle.Invariants))
		}
		for _, inv := range oracle.Invariants {
			if err, ok := got[inv.Name]; !ok || err != nil {
				t.Errorf("%s: got %v (present %v), want nil, present", inv.Name, err, ok)
			}
		}
	})
	t.Run("check - named invariants only - pass", func(t *testing.T) {
		o := goodObservation(t)
		o.Panics = []string{"boom"}
		got := oracle.Judge(o, "live", "clean-stop")
		if len(got) != 2 || got["live"] != nil || !errors.Is(got["clean-stop"], oracle.ErrUncleanStop) {
			t.Errorf("results: got %v, want live: nil, clean-stop: %v", got, oracle.ErrUncleanStop)
		}
	})
	t.Run("check - unknown name - fail", func(t *testing.T) {
		got := oracle.Judge(goodObservation(t), "no-such")
		if !errors.Is(got["no-such"], oracle.ErrUnknownInvariant) {
			t.Errorf("no-such: got %v, want %v", got["no-such"], oracle.ErrUnknownInvariant)
		}
	})
	t.Run("check - nil observation - fail", func(t *testing.T) {
		for name, err := range oracle.Judge(nil) {
			if !errors.Is(err, oracle.ErrNoObservation) {
				t.Errorf("%s: got %v, want %v", name, err, oracle.ErrNoObservation)
			}
		}
	})
	t.Run("check - several differences joined - fail", func(t *testing.T) {
		o := goodObservation(t)
		delete(o.Store, "ns/a")
		delete(o.Store, "ns/c")
		err := oracle.Judge(o, "converged")["converged"]
		if got := strings.Count(err.Error(), "missing"); got != 2 {
			t.Errorf("missing lines: got %d in %q, want 2", got, err)
		}
	})
	t.Run("lookup - unknown name - fail", func(t *testing.T) {
		if _, ok := oracle.LookupInvariant("no-such"); ok {
			t.Errorf("Lookup: got true, want false")
		}
	})
}

// listingOf returns a Listing of l's state at pos, at the resourceVersion
// that names it, each item as edit makes it.
func listingOf(t *testing.T, l *history.Log, pos int, edit func(*unstructured.Unstructured)) observe.Listing {
	t.Helper()
	var items []any
	for _, o := range l.StateAt(pos) {
		u := &unstructured.Unstructured{}
		u.SetNamespace(o.Namespace)
		u.SetName(o.Name)
		u.SetResourceVersion(o.ResourceVersion)
		if edit != nil {
			edit(u)
		}
		items = append(items, u)
	}
	keys, sum, ok := observe.ViewOf(items)
	if !ok {
		t.Fatalf("ViewOf: got not ok, want a digest")
	}
	return observe.Listing{RV: l.RVAt(pos), Keys: keys, Sum: sum}
}

// withReference gives o a served history (its truth), one write and a
// reference. The reference is the served history's outcome, changed by
// change (nil: none), under the default masks.
func withReference(o *observe.Observation, change func(ref *oracle.FinalState)) {
	o.Served = &history.History{Logs: []*history.Log{o.TruthLog}}
	o.Writes = []history.WriteAnswer{{Verb: "create", Resource: o.TruthLog.Resource, Key: "ns/d", Code: 201, Event: history.Added}}
	o.WritesLogged = true
	ref := oracle.FinalStateOf(o.Served)
	if change != nil {
		change(&ref)
	}
	references.Store(o, &oracle.Reference{FinalState: ref, Masks: oracle.DefaultMaskSet(), Writes: 1})
}

// references holds the reference withReference gave each observation: the
// judge takes it beside the observation, not in it.
var references sync.Map

// referenceOf returns the reference withReference gave o (nil: none).
func referenceOf(o *observe.Observation) *oracle.Reference {
	ref, _ := references.Load(o)
	r, _ := ref.(*oracle.Reference)
	return r
}

// TestCleanStopErrorSite checks that a target error carrying a site
// (harness.SiteError, observed as ErrorSites) gives clean-stop's
// signature that site, and that a bare error gives none.
func TestCleanStopErrorSite(t *testing.T) {
	const site = "k8s.io/client-go/tools/cache.(*Reflector).watchList.func1"
	tests := []struct {
		name  string
		sites []string
		want  string
	}{
		{name: "clean-stop site - an error with a site - the site - fail", sites: []string{site}, want: site},
		{name: "clean-stop site - a bare error - no site - fail", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := goodObservation(t)
			o.Errors = []string{"Run returned: failed waiting for all runnables to end within grace period of 30s"}
			o.ErrorSites = tc.sites
			got := oracle.SignatureOf(oracle.Judge(o, "clean-stop"))
			if len(got.Invariants) != 1 || got.Site != tc.want {
				t.Errorf("signature: got %v at %q, want clean-stop at %q", got.Invariants, got.Site, tc.want)
			}
		})
	}
}
