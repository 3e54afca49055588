package fuzz

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// Options configure Run. The zero value (with Cassettes set) fuzzes the
// informer target over configmaps, both WatchList paths, legal faults only,
// and checks every invariant.
type Options struct {
	// Cassettes is a glob naming the cassettes to replay, one history per
	// file ("testdata/cassettes/*.yaml").
	Cassettes string
	// Target is the client-go code to run; zero means the "informer"
	// target.
	Target Target
	// WatchList fixes the client path; nil lets a byte of the input choose
	// it.
	WatchList *bool
	// AllowBreaking keeps the breaking faults a plan decodes to; violations
	// after one fired are logged, not failed. False (the default) drops
	// them, so every violation is a failure.
	AllowBreaking bool
	// Invariants names the invariants to check; nil means all.
	Invariants []string
	// Resource is the resource to watch; zero means core v1 configmaps.
	Resource history.Resource
}

// fuzzCassette is one cassette loaded for a fuzz run.
type fuzzCassette struct {
	path string
	h    *history.History
}

// input is what one fuzz input means.
type input struct {
	// cassette is the index of the cassette to replay.
	cassette int
	// watchList is the client path.
	watchList bool
	// plan is the fault plan, filtered to legal faults unless breaking
	// ones are allowed.
	plan faults.Plan
}

// Run fuzzes o.Target against the cassettes o.Cassettes names. It loads
// every cassette once, adds seeds per cassette (that cassette, no fault;
// one per WatchList path when o.WatchList is nil) and then runs the target once per input: data[0] picks the cassette
// (modulo their count), data[1] the WatchList path when o.WatchList is nil
// (odd or absent: on; even: off), and data[2:] decode with faults.Decode to
// the fault plan. A run that breaks an invariant fails with a report that
// names the invariant, cassette, path, plan and what fired, and gives the
// input to replay; when a breaking fault fired the violation is only
// logged.
func Run(f *testing.F, o Options) {
	f.Helper()
	cassettes := loadCassettes(f, o)
	for i := range cassettes {
		f.Add([]byte{byte(i)})
		if o.WatchList == nil {
			f.Add([]byte{byte(i), 0})
		}
	}
	target := o.Target
	if target.Run == nil {
		target, _ = LookupTarget("informer")
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := decodeInput(data, len(cassettes), o)
		c := cassettes[in.cassette]
		obs := RunResource(t, c.h, resourceOf(o), in.plan, target, in.watchList)
		if report := violations(obs, o.Invariants, c.path, in, data); report != "" {
			if broke := firedBreaking(obs); len(broke) > 0 {
				t.Logf("expected under breaking fault %s:\n%s", strings.Join(broke, ", "), report)
				return
			}
			t.Fatalf("target %s broke invariants:\n%s", target.Name, report)
		}
	})
}

// resourceOf is the resource o asks for.
func resourceOf(o Options) history.Resource {
	if o.Resource == (history.Resource{}) {
		return ConfigMaps
	}
	return o.Resource
}

// loadCassettes loads and builds every cassette matching o.Cassettes,
// failing f when none matches or one does not load or lacks the resource.
func loadCassettes(f *testing.F, o Options) []fuzzCassette {
	f.Helper()
	paths, err := filepath.Glob(o.Cassettes)
	if err != nil {
		f.Fatalf("cassettes %q: got error %v, want a valid glob", o.Cassettes, err)
	}
	if len(paths) == 0 {
		f.Fatalf("cassettes %q: got no file, want at least one", o.Cassettes)
	}
	if len(paths) > 256 {
		f.Fatalf("cassettes %q: got %d files, want at most 256 (one input byte picks one)", o.Cassettes, len(paths))
	}
	sort.Strings(paths)
	res := resourceOf(o)
	out := make([]fuzzCassette, 0, len(paths))
	for _, p := range paths {
		files, err := cassette.LoadAll(p)
		if err != nil {
			f.Fatalf("cassette %s: load: got error %v, want none", p, err)
		}
		h, err := history.Build(files...)
		if err != nil {
			f.Fatalf("cassette %s: build history: got error %v, want none", p, err)
		}
		if _, ok := h.Log(res); !ok {
			f.Fatalf("cassette %s: got no %s, want a log of it", p, res.Resource)
		}
		out = append(out, fuzzCassette{path: p, h: h})
	}
	return out
}

// decodeInput reads a fuzz input over n cassettes (see Run).
func decodeInput(data []byte, n int, o Options) input {
	var in input
	if len(data) > 0 && n > 0 {
		in.cassette = int(data[0]) % n
	}
	switch {
	case o.WatchList != nil:
		in.watchList = *o.WatchList
	case len(data) > 1:
		in.watchList = data[1]%2 == 1
	default:
		in.watchList = true
	}
	if len(data) > 2 {
		in.plan = faults.Decode(data[2:])
	}
	if !o.AllowBreaking {
		in.plan = in.plan.Only(faults.Legal)
	}
	return in
}

// violations checks the named invariants on obs and returns a report of
// those broken ("" when none is).
func violations(obs *Observation, names []string, path string, in input, data []byte) string {
	results := Check(obs, names...)
	var b strings.Builder
	for _, name := range invariantOrder(results) {
		if err := results[name]; err != nil {
			fmt.Fprintf(&b, "invariant %s: %v\n", name, err)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	wl := "off"
	if in.watchList {
		wl = "on"
	}
	var fired []faults.Firing
	if obs != nil {
		fired = obs.Fired
	}
	fmt.Fprintf(&b, "cassette: %s\n", path)
	fmt.Fprintf(&b, "WatchList: %s\n", wl)
	fmt.Fprintf(&b, "plan: %s\n", planText(in.plan))
	fmt.Fprintf(&b, "fired: %s\n", faults.Story(fired))
	fmt.Fprintf(&b, "input: []byte(%q)", data)
	return b.String()
}

// planText is the plan's text form, or "no fault" when it is empty.
func planText(p faults.Plan) string {
	if len(p.Decisions) == 0 {
		return "no fault"
	}
	return p.String()
}

// invariantOrder returns the names in results, in report order (unknown
// names last, sorted).
func invariantOrder(results map[string]error) []string {
	var out []string
	seen := map[string]bool{}
	for _, inv := range Invariants {
		if _, ok := results[inv.Name]; ok {
			out = append(out, inv.Name)
			seen[inv.Name] = true
		}
	}
	var rest []string
	for name := range results {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// firedBreaking returns the names of the breaking faults that fired during
// the run, each once, in firing order.
func firedBreaking(obs *Observation) []string {
	if obs == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, fr := range obs.Fired {
		if f, ok := faults.Lookup(fr.Fault); ok && f.Class == faults.Breaking && !seen[fr.Fault] {
			seen[fr.Fault] = true
			out = append(out, fr.Fault)
		}
	}
	return out
}
