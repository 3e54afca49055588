package children

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// watchedTarget is controllerTarget that also keeps the reconcile errors
// of each run's controller, for the test to look at.
type watchedTarget struct {
	mu   sync.Mutex
	errs []error
}

func (w *watchedTarget) target(name string, opts ...Option) fuzz.Target {
	return controllerTargetThen(name, func(c *Controller) {
		w.mu.Lock()
		w.errs = append(w.errs, c.Errors()...)
		w.mu.Unlock()
	}, opts...)
}

// errors returns the reconcile errors kept from the n-th on.
func (w *watchedTarget) errors(n int) []error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]error(nil), w.errs[n:]...)
}

// count returns the reconcile errors kept.
func (w *watchedTarget) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.errs)
}

// refusedWrites returns the errors that are a verbatim replay's refusal
// of a write (a 400 whose Status names the reproducer) of the given method.
func refusedWrites(errs []error, method string) []error {
	var out []error
	for _, err := range errs {
		if apierrors.IsBadRequest(err) && strings.Contains(err.Error(), "lwreplay: ") && strings.Contains(err.Error(), ": "+method+" ") {
			out = append(out, err)
		}
	}
	return out
}

// answersRunOut reports whether errs hold the verbatim replay's 404 for an
// update with no recorded answer left: the stale loop used them all.
func answersRunOut(errs []error) bool {
	for _, err := range errs {
		if apierrors.IsNotFound(err) && strings.Contains(err.Error(), "no answer left for PUT") {
			return true
		}
	}
	return false
}

// broken names the invariants out broke, sorted.
func broken(out *fuzz.Outcome) []string {
	var names []string
	for name, err := range out.Results {
		if err != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// check is one finding of TestStaleRetryReproduces: ok, or what it got
// and wanted.
type check struct {
	name string
	ok   bool
	got  any
	want string
}

// TestStaleRetryReproduces saves the planted controller's failure and replays its reproducer. The
// reproducer holds the controller's writes (protobuf request bodies and their answers) and their
// echoes. A verbatim replay answers the same writes in order: the create, the update and the stale
// loop's 409s. Its echoes are held back until it writes. The same invariants break, and maybe
// more: the failing run ended at its broken bound, and its end state was not judged. (The
// controller's informer hands it the parents in an order that changes from run to run. So a create
// of another parent's child may be refused with a 400 first. The recording, its one worker stuck,
// never made it.) The controller's informer hands it the parents in an order that changes from run
// to run. So the parent stuck in the stale loop is not always the first it reconciles. The creates
// of other parents' children are refused (400) until it reaches the recorded one; the recording
// (one worker, stuck) never made them. Its updates, the loop, are answered as recorded.
func TestStaleRetryReproduces(t *testing.T) {
	var wt watchedTarget
	target := wt.target("children-stale", WithStaleRetry())
	c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: cassettes[:1], Target: target, Extra: []fuzz.Invariant{childrenMatchParents}})
	if err != nil {
		t.Fatal(err)
	}
	out := c.Check(t, []byte{0, 0})
	if !out.Failed() {
		t.Fatalf("planted controller: got no failure, want the stale retry reported")
	}
	dir := t.TempDir()
	saved, err := c.Save(t, out, dir)
	if err != nil || !saved.Reproduced {
		t.Fatalf("Save: got %+v, error %v, want a reproducer that reproduced", saved, err)
	}
	want := broken(saved.Outcome)
	repro := filepath.Join(dir, fuzz.ReproducerFile)
	files, err := cassette.LoadAll(repro)
	if err != nil {
		t.Fatalf("load the reproducer: got error %v, want none", err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatalf("build the reproducer's history: got error %v, want none", err)
	}
	bodies, codes := 0, map[string]int{}
	for _, f := range files {
		for _, it := range f.Interactions {
			if it.Method == "GET" {
				continue
			}
			codes[it.Method+" "+strconv.Itoa(it.Code)]++
			if it.RequestHeader.Get("Content-Type") == "application/vnd.kubernetes.protobuf" && bytes.HasPrefix(it.RequestBody, []byte("k8s\x00")) {
				bodies++
			}
		}
	}
	echoed := 0
	for _, w := range h.Writes {
		if w.EchoRV != "" {
			echoed++
		}
	}
	recordingRefused := len(refusedWrites(wt.errors(0), "POST")) + len(refusedWrites(wt.errors(0), "PUT"))
	checks := []check{
		{name: "reproducer - the controller's writes - recorded - pass", ok: codes["POST 201"] > 0 && codes["PUT 200"] > 0 && codes["PUT 409"] > 0,
			got: codes, want: "POSTs answered 201, PUTs answered 200 and 409"},
		{name: "reproducer - the writes' bodies - protobuf, as the clientset sent them - pass", ok: len(h.Writes) > 0 && bodies == len(h.Writes),
			got: fmt.Sprintf("%d of %d", bodies, len(h.Writes)), want: "every write's body"},
		{name: "reproducer - the writes' echoes - in its watch streams - pass", ok: echoed > 0, got: echoed, want: "a write echoed"},
		{name: "reproducer - the recording run - no write refused - pass", ok: recordingRefused == 0, got: recordingRefused, want: "0"},
	}
	r, err := fuzz.NewCampaign(fuzz.Options{Cassettes: []string{repro}, Target: target, Extra: []fuzz.Invariant{childrenMatchParents}})
	if err != nil {
		t.Fatalf("reproducer campaign: got error %v, want none", err)
	}
	for _, seed := range r.Seeds() {
		before := wt.count()
		got := r.Check(t, seed)
		errs := wt.errors(before)
		creates, updates := refusedWrites(errs, "POST"), refusedWrites(errs, "PUT")
		answered := map[string]int{} // the replay's answers to the writes
		for _, q := range got.Observation.Requests {
			if q.Verb == "POST" || q.Verb == "PUT" {
				answered[q.Verb+" "+strconv.Itoa(q.Code)]++
			}
		}
		t.Logf("reproducer, input %q: broke %v; writes answered %v (recorded %v); refused: %d creates, %d updates", seed, broken(got), answered, codes, len(creates), len(updates))
		checks = append(checks,
			check{name: fmt.Sprintf("reproducer - replayed verbatim, input %q - the same invariants broken, no plan - pass", seed),
				ok: containsAll(broken(got), want) && len(got.Plan.Decisions) == 0, got: broken(got), want: strings.Join(want, " ") + " (at least)"},
			check{name: fmt.Sprintf("reproducer - replayed verbatim, input %q - the create, the update and the stale loop answered as recorded - pass", seed),
				ok:  answered["POST 201"] == codes["POST 201"] && answered["PUT 200"] == codes["PUT 200"] && answered["PUT 409"] == codes["PUT 409"] && len(updates) == 0,
				got: fmt.Sprintf("answered %v, %d updates refused", answered, len(updates)), want: fmt.Sprintf("the recorded create and update, each of the %d recorded 409s, no update refused", codes["PUT 409"])})
	}
	for _, tc := range checks {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Errorf("got %v, want %s", tc.got, tc.want)
			}
		})
	}
}

// containsAll reports whether got holds every name of want.
func containsAll(got, want []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}
