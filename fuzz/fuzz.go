package fuzz

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
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
	// Extra are the user's own invariants, checked after the built-in
	// ones (see NewInvariant); Invariants may name them too.
	Extra []Invariant
	// Plans is a glob naming saved plan files (faults.ParsePlan's YAML, as
	// a failure report's plan.yaml): each becomes a seed on every cassette
	// and client path. A plan must be one fuzz bytes can say (decisions
	// placed with at=, see faults.Encode). Empty: none.
	Plans string
	// Level is the level exploration runs at; zero means Typed, whose
	// violations are confirmed at the wire level before they are
	// reported.
	Level Level
}

// fuzzCassette is one cassette loaded for a fuzz run.
type fuzzCassette struct {
	path    string
	h       *history.History
	decoded *decoded
	// reproducer holds the files of a reproducer (replayed verbatim, with
	// no plan, on the client path it was recorded on); nil otherwise.
	reproducer []*cassette.File
	watchList  bool // a reproducer's client path
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
// one per WatchList path when o.WatchList is nil) and then runs the target
// once per input (see Campaign.Check for what an input means). A run that
// breaks an invariant fails with a report that names the invariant,
// cassette, path, plan and what fired, gives the input to replay, and
// points at the report files and reproducer written for it; when a
// breaking fault fired the violation is only logged.
func Run(f *testing.F, o Options) {
	f.Helper()
	c, err := NewCampaign(o)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range c.Seeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out := c.Check(t, data)
		switch {
		case out.Report == "":
		case out.Expected:
			t.Logf("expected under breaking fault %s:\n%s", strings.Join(out.Breaking, ", "), out.Report)
		default:
			c.Fail(t, out)
		}
	})
}

// Campaign is a fuzzing campaign: a target, the cassettes it replays and
// the invariants it is held to. Run drives one from go test -fuzz; the
// lwreplay fuzz command drives one from random inputs. It is safe for
// concurrent use.
type Campaign struct {
	opts      Options
	target    Target
	res       history.Resource
	cassettes []fuzzCassette
	plans     [][]byte // saved plans, encoded as input bytes 2 on
}

// NewCampaign loads and builds every cassette o.Cassettes names and
// returns a campaign over them; the error names the cassette that does not
// load, does not build or lacks the resource.
func NewCampaign(o Options) (*Campaign, error) {
	c := &Campaign{opts: o, target: o.Target, res: resourceOf(o)}
	if c.target.Run == nil {
		c.target, _ = LookupTarget("informer")
	}
	if c.target.Name == "" {
		return nil, fmt.Errorf("%w: a target needs a name", ErrTarget)
	}
	seen := map[string]bool{}
	for _, inv := range o.Extra {
		if _, builtin := Lookup(inv.Name); builtin || seen[inv.Name] || inv.Name == "" || inv.Check == nil {
			return nil, fmt.Errorf("%w: user invariant %q: want a unique name and a check", ErrUnknownInvariant, inv.Name)
		}
		seen[inv.Name] = true
	}
	for _, name := range o.Invariants {
		if _, ok := c.invariant(name); !ok {
			return nil, fmt.Errorf("%w: %q", ErrUnknownInvariant, name)
		}
	}
	var err error
	c.cassettes, err = loadCassettes(o.Cassettes, c.res)
	if err != nil {
		return nil, err
	}
	if c.plans, err = loadPlans(o.Plans); err != nil {
		return nil, err
	}
	return c, nil
}

// loadPlans reads and encodes the plan files glob names.
func loadPlans(glob string) ([][]byte, error) {
	if glob == "" {
		return nil, nil
	}
	paths, err := filepath.Glob(glob)
	if err != nil {
		return nil, fmt.Errorf("plans %q: %w", glob, err)
	}
	sort.Strings(paths)
	var out [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", p, err)
		}
		plan, err := faults.ParsePlan(data)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", p, err)
		}
		enc, err := faults.Encode(plan)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", p, err)
		}
		out = append(out, enc)
	}
	return out, nil
}

// Target returns the campaign's target.
func (c *Campaign) Target() Target { return c.target }

// Cassettes returns the paths of the campaign's cassettes, in input order.
func (c *Campaign) Cassettes() []string {
	out := make([]string, len(c.cassettes))
	for i, fc := range c.cassettes {
		out[i] = fc.path
	}
	return out
}

// Seeds returns the seed inputs: per cassette, no fault and then each
// saved plan (Options.Plans), on each WatchList path the options leave
// open.
func (c *Campaign) Seeds() [][]byte {
	var out [][]byte
	for i := range c.cassettes {
		out = append(out, []byte{byte(i)})
		if c.opts.WatchList == nil {
			out = append(out, []byte{byte(i), 0})
		}
		for _, p := range c.plans {
			out = append(out, append([]byte{byte(i), 1}, p...))
			if c.opts.WatchList == nil {
				out = append(out, append([]byte{byte(i), 0}, p...))
			}
		}
	}
	return out
}

// Outcome is what one input's run came to.
type Outcome struct {
	// Input is the fuzz input.
	Input []byte
	// Cassette is the path of the cassette replayed.
	Cassette string
	// WatchList is the client path.
	WatchList bool
	// Plan is the fault plan acted out.
	Plan faults.Plan
	// Level is the level of the run Observation and Results come from: the
	// wire level when a typed-level violation was confirmed there.
	Level Level
	// Observation is what the run saw.
	Observation *Observation
	// Results holds each checked invariant's result, by name (nil: held).
	Results map[string]error
	// Report is the human-readable report of the broken invariants; ""
	// when all held.
	Report string
	// Breaking names the breaking faults that fired, each once.
	Breaking []string
	// Expected is true when an invariant broke after a breaking fault
	// fired: the violation is the fault's doing, not a bug.
	Expected bool
	// Unconfirmed is the report of a typed-level violation that the wire
	// level did not repeat ("" otherwise); it is not a failure.
	Unconfirmed string
}

// Failed reports whether the outcome is a bug: an invariant broke under
// legal faults only.
func (o *Outcome) Failed() bool { return o.Report != "" && !o.Expected }

// Check runs the target once on data and judges it. data[0] picks the
// cassette (modulo their count), data[1] the WatchList path when
// Options.WatchList is nil (odd or absent: on; even: off), and data[2:]
// decode with faults.Decode to the fault plan. The run is at
// Options.Level; a violation found at the typed level is run again at the
// wire level, and only a violation the wire level repeats is reported.
func (c *Campaign) Check(t *testing.T, data []byte) *Outcome {
	t.Helper()
	in := decodeInput(data, len(c.cassettes), c.opts)
	fc := c.cassettes[in.cassette]
	if fc.reproducer != nil {
		in.plan, in.watchList = faults.Plan{}, fc.watchList
	}
	spec := c.spec(in)
	out := &Outcome{Input: append([]byte(nil), data...), Cassette: fc.path, WatchList: in.watchList, Plan: in.plan, Level: spec.Level}
	c.judge(out, Replay(t, spec))
	if out.Report != "" && spec.Level == Typed {
		typed := out.Report
		spec.Level = Wire
		out.Level = Wire
		c.judge(out, Replay(t, spec))
		if out.Report == "" {
			out.Unconfirmed = typed
		}
	}
	return out
}

// spec is the run an input asks for.
func (c *Campaign) spec(in input) Spec {
	fc := c.cassettes[in.cassette]
	return Spec{History: fc.h, Resource: c.res, Plan: in.plan, Target: c.target, WatchList: in.watchList,
		Level: c.opts.Level, Reproducer: fc.reproducer, decoded: fc.decoded}
}

// judge checks the campaign's invariants on obs into out.
func (c *Campaign) judge(out *Outcome, obs *Observation) {
	out.Observation = obs
	out.Results = c.results(obs)
	out.Report = c.report(out)
	out.Breaking = firedBreaking(obs)
	out.Expected = out.Report != "" && len(out.Breaking) > 0
}

// Fail minimizes and saves out (see Save) and fails t with the report.
func (c *Campaign) Fail(t *testing.T, out *Outcome) {
	t.Helper()
	saved, err := c.Save(t, out, artifactDir(t, c.target.Name, out))
	if saved == nil {
		t.Fatalf("target %s broke invariants:\n%s\n(no report written: %v)", c.target.Name, out.Report, err)
	}
	note := ""
	if err != nil {
		note = fmt.Sprintf("\n(report incomplete: %v)", err)
	}
	t.Fatalf("target %s broke invariants:\n%s\nreport: %s\nreproducer: %s%s", c.target.Name, saved.Outcome.Report,
		filepath.Join(saved.Dir, ReportFile), filepath.Join(saved.Dir, ReproducerFile), note)
}

// resourceOf is the resource o asks for.
func resourceOf(o Options) history.Resource {
	if o.Resource == (history.Resource{}) {
		return ConfigMaps
	}
	return o.Resource
}

// loadCassettes loads and builds every cassette matching glob, failing
// when none matches or one does not load or lacks res.
func loadCassettes(glob string, res history.Resource) ([]fuzzCassette, error) {
	paths, err := filepath.Glob(glob)
	if err != nil {
		return nil, fmt.Errorf("cassettes %q: %w", glob, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("cassettes %q: %w: no file matches", glob, ErrNoCassette)
	}
	if len(paths) > 256 {
		return nil, fmt.Errorf("cassettes %q: %w: %d files, at most 256 (one input byte picks one)", glob, ErrNoCassette, len(paths))
	}
	sort.Strings(paths)
	out := make([]fuzzCassette, 0, len(paths))
	for _, p := range paths {
		files, err := cassette.LoadAll(p)
		if err != nil {
			return nil, fmt.Errorf("cassette %s: %w", p, err)
		}
		h, err := history.Build(files...)
		if err != nil {
			return nil, fmt.Errorf("cassette %s: %w", p, err)
		}
		if _, ok := h.Log(res); !ok {
			return nil, fmt.Errorf("cassette %s: %w: no %s recorded", p, ErrNoCassette, res.Resource)
		}
		fc := fuzzCassette{path: p, h: h, decoded: newDecoded()}
		if replayer.IsVerbatim(files...) {
			fc.reproducer, fc.watchList = files, recordedWatchList(files)
		}
		out = append(out, fc)
	}
	return out, nil
}

// recordedWatchList reports whether the traffic in files was a WatchList
// client's: some request asked for initial events.
func recordedWatchList(files []*cassette.File) bool {
	for _, f := range files {
		for _, i := range f.Interactions {
			if u, err := url.Parse(i.URL); err == nil && u.Query().Get("sendInitialEvents") == "true" {
				return true
			}
		}
	}
	return false
}

// ErrNoCassette says a campaign has no usable cassette.
var ErrNoCassette = errors.New("no usable cassette")

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

// results checks the campaign's invariants on obs.
func (c *Campaign) results(obs *Observation) map[string]error {
	out := map[string]error{}
	if names := c.builtinNames(); len(names) > 0 {
		out = Check(obs, names...)
	}
	for _, inv := range c.opts.Extra {
		if len(c.opts.Invariants) == 0 || slices.Contains(c.opts.Invariants, inv.Name) {
			out[inv.Name] = checkOne(inv, obs)
		}
	}
	return out
}

// report renders the broken invariants of out ("" when none broke).
func (c *Campaign) report(out *Outcome) string {
	var b strings.Builder
	for _, name := range invariantOrder(out.Results) {
		if err := out.Results[name]; err != nil {
			fmt.Fprintf(&b, "invariant %s: %v\n", name, err)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	wl := "off"
	if out.WatchList {
		wl = "on"
	}
	var fired []faults.Firing
	if out.Observation != nil {
		fired = out.Observation.Fired
	}
	fmt.Fprintf(&b, "cassette: %s\n", out.Cassette)
	fmt.Fprintf(&b, "WatchList: %s\n", wl)
	fmt.Fprintf(&b, "level: %s\n", out.Level)
	fmt.Fprintf(&b, "plan: %s\n", planText(out.Plan))
	fmt.Fprintf(&b, "fired: %s\n", faults.Story(fired))
	fmt.Fprintf(&b, "input: []byte(%q)", out.Input)
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
