// Package report writes a fuzz failure's files: the report's text, the
// story's account of the target's activity and the run's HTML timeline.
package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
)

// ErrReport is returned when a failure report cannot be written.
var ErrReport = errors.New("failure report")

// Facts are what a failure report says of one run: its verdicts and the
// run's setting.
type Facts struct {
	// Results and NotJudged are the judge's verdicts, by invariant.
	Results   map[string]error
	NotJudged map[string]string
	// Signature and Known name the finding (Known: "" when not known).
	Signature oracle.Signature
	Known     string
	// Observation is what the run saw (nil: none).
	Observation *observe.Observation
	// Resource, Cassette and WatchList are what was replayed, and how.
	Resource  history.Resource
	Cassette  string
	WatchList bool
	// Level, Pace and Latency are how the target met the replay.
	Level   level.Level
	Pace    replayer.Pace
	Latency time.Duration
	// Plan is the fault plan, as text.
	Plan string
	// Actors name the cluster's controllers run beside the target.
	Actors []string
	// FaultsOnActors says the plan acted on the actors' requests too.
	FaultsOnActors bool
	// Scenario names the scenario whose plan ran ("" for none).
	Scenario string
	// Seed is the run's harness.Spec.Seed (0 for an input's run).
	Seed uint64
	// Input is the canonical input (nil: the plan has no byte form).
	Input []byte
}

// Text renders the broken invariants of f and the run's setting ("" when
// none broke).
func Text(f Facts) string {
	out := f
	var b strings.Builder
	for _, name := range oracle.InReportOrder(out.Results) {
		if err := out.Results[name]; err != nil {
			fmt.Fprintf(&b, "invariant %s: %v\n", name, err)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteString(NotJudgedText(out.NotJudged))
	wl := "off"
	if out.WatchList {
		wl = "on"
	}
	var fired []faults.Firing
	if out.Observation != nil {
		fired = out.Observation.Fired
	}
	fmt.Fprintf(&b, "signature: %s\n", out.Signature)
	if out.Known != "" {
		fmt.Fprintf(&b, "known finding: %s (not a failure; Options.ReportKnown or --report-known reports it)\n", out.Known)
	}
	fmt.Fprintf(&b, "resource: %s\n", out.Resource)
	fmt.Fprintf(&b, "cassette: %s\n", out.Cassette)
	fmt.Fprintf(&b, "WatchList: %s\n", wl)
	if out.Observation != nil {
		fmt.Fprintf(&b, "gates: %s\n", harness.GatesText(out.Observation.Gates))
	}
	fmt.Fprintf(&b, "client-go: %s\n", harness.ClientGoVersion())
	fmt.Fprintf(&b, "level: %s\n", out.Level)
	fmt.Fprintf(&b, "pace: %s\n", out.Pace)
	fmt.Fprintf(&b, "latency: %v (virtual time each request takes to reach the replay)\n", out.Latency)
	fmt.Fprintf(&b, "plan: %s\n", out.Plan)
	if len(out.Actors) > 0 {
		fmt.Fprintf(&b, "actors: %s (the cluster's own controllers beside the target)\n", strings.Join(out.Actors, ", "))
		if out.FaultsOnActors {
			b.WriteString("faults on actors: the plan acts on their requests too\n")
		}
	}
	if out.Scenario != "" {
		fmt.Fprintf(&b, "scenario: %s (Options.Scenarios: a plan made from this cassette and path's fault-free run)\n", out.Scenario)
	}
	if out.Seed != 0 {
		fmt.Fprintf(&b, "seed: %d (harness.Spec.Seed; the input does not hold it)\n", out.Seed)
	}
	fmt.Fprintf(&b, "fired: %s\n", faults.Story(fired))
	if out.Observation != nil && out.Observation.BoundEnd != nil {
		e := out.Observation.BoundEnd
		fmt.Fprintf(&b, "ended: at its first broken behaviour bound, %s, crossed at %v of virtual time (the run looked no further)\n", e.Invariant, e.At)
	}
	if out.Observation != nil && len(out.Observation.Exits) > 0 {
		fmt.Fprintf(&b, "%s\n", exitsText(out.Observation.Exits))
	}
	fmt.Fprintf(&b, "%s\n", activitySummary(out.Observation))
	if out.Input == nil {
		b.WriteString("input: none (the plan has no byte form; Campaign.CheckPlan runs it, plan.yaml holds it)")
	} else {
		fmt.Fprintf(&b, "input: []byte(%q)", out.Input)
	}
	return b.String()
}

// NotJudgedText renders the invariants not judged, one line per reason:
// "not judged: converged, live: unsettled run: ...\n" ("" when all were).
func NotJudgedText(notJudged map[string]string) string {
	var reasons []string
	names := map[string][]string{}
	for _, name := range oracle.InReportOrder(notJudged) {
		why := notJudged[name]
		if names[why] == nil {
			reasons = append(reasons, why)
		}
		names[why] = append(names[why], name)
	}
	var b strings.Builder
	for _, why := range reasons {
		fmt.Fprintf(&b, "not judged: %s: %s\n", strings.Join(names[why], ", "), why)
	}
	return b.String()
}

// Activity is the story's account of what the target sent: its
// requests, and its writes as the replay answered them ("" for neither).
func Activity(obs *observe.Observation) string {
	if obs == nil {
		return ""
	}
	var b strings.Builder
	if len(obs.Requests) > 0 {
		fmt.Fprintf(&b, "\nthe target's requests (virtual time, verb, resource, resourceVersion asked for):\n%s", requestRows(obs.Requests, 20, 5))
	}
	if len(obs.Writes) > 0 {
		fmt.Fprintf(&b, "\nthe target's writes as the replay answered them (virtual time, verb, resource, key, resourceVersion before→after, code):\n%s",
			writeRows(obs.Writes, 20, 5))
	}
	return b.String()
}

// WriteFile writes data to dir/name.
func WriteFile(dir, name string, data []byte) error {
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		return fmt.Errorf("%w: %v", ErrReport, err)
	}
	return nil
}

// exitsText says when a container target exited and was restarted, and
// why the first time:
//
//	exits: 2 (Run returned an error; the kubelet restarted it, cold): at 2m0s, restarted at 2m10s; at 4m12s, restarted at 4m32s; the first: timed out
func exitsText(exits []observe.Exit) string {
	parts := make([]string, 0, len(exits))
	for _, e := range exits {
		if e.RestartedAt < 0 {
			parts = append(parts, fmt.Sprintf("at %v, the run ended before its restart", e.At.Round(time.Millisecond)))
			continue
		}
		parts = append(parts, fmt.Sprintf("at %v, restarted at %v", e.At.Round(time.Millisecond), e.RestartedAt.Round(time.Millisecond)))
	}
	return fmt.Sprintf("exits: %d (Run returned an error; the kubelet restarted it, cold): %s; the first: %s", len(exits), strings.Join(parts, "; "), exits[0].Err)
}
