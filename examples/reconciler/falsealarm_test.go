package reconciler

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/replayer"
)

// pairs is how many fault-free runs TestFaultFreePairs judges in all
// (bench/false-alarms.sh: 1,000); 0 means defaultPairs.
var pairs = flag.Int("pairs", 0, "fault-free runs TestFaultFreePairs judges against their reference pair (0: a few)")

// defaultPairs is TestFaultFreePairs's count under plain go test: one run
// of each target, pace and client path. (Each key's reference pair costs
// two more.) So go test stays fast.
const defaultPairs = 8

// seenAnnotation is what annotator writes on every configmap.
const seenAnnotation = "example.com/seen"

// annotator is fuzz/crtarget's test reconciler: it annotates each
// configmap once, through the manager's client.
type annotator struct{ c client.Client }

// Reconcile annotates the configmap req names, if it is not yet.
func (r *annotator) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.c.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if cm.Annotations[seenAnnotation] == "true" {
		return ctrl.Result{}, nil
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[seenAnnotation] = "true"
	return ctrl.Result{}, r.c.Update(ctx, &cm)
}

// annotatorTarget runs annotator in a controller-runtime manager, as
// fuzz/crtarget's tests do.
var annotatorTarget = crtarget.Target("annotator", "a controller-runtime reconciler that annotates every configmap",
	func(mgr manager.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).WithOptions(crtarget.ControllerOptions()).
			Complete(&annotator{c: mgr.GetClient()})
	})

// pairCampaign is one campaign of TestFaultFreePairs: a target under a
// pace, its reference runs cached per cassette and client path.
type pairCampaign struct {
	target string
	pace   replayer.Pace
	c      *fuzz.Campaign
}

// pairTally counts TestFaultFreePairs's runs of one target, pace and
// client path.
type pairTally struct {
	runs, writes, reports, known int
	took                         time.Duration
}

// TestFaultFreePairs is the differential oracle's false-alarm bar. It
// makes fault-free runs of the correct reconciler (with
// one-child-per-parent) and of crtarget's annotator manager. Each has a
// seed of its own (Campaign.CheckSeed: other backoffs and timeouts). They
// go round-robin over every shipped cassette, both client paths and both
// paces. same-outcome judges each against its key's reference pair,
// confirmed as a campaign confirms an alarm. Every other invariant judges
// it too. None is reported. -pairs N sets how many runs in all (default
// defaultPairs). bench/false-alarms.sh runs 1,000. It logs the runs,
// reports and wall time per target, pace and path, and the masks each key
// learned.
func TestFaultFreePairs(t *testing.T) {
	n := *pairs
	if n <= 0 {
		n = defaultPairs
	}
	var camps []*pairCampaign
	for _, tc := range []struct {
		target fuzz.Target
		extra  []fuzz.Invariant
	}{{target("children"), []fuzz.Invariant{oneChildPerParent}}, {annotatorTarget, nil}} {
		for _, pace := range []replayer.Pace{{Mode: replayer.PaceMax}, {Mode: replayer.PaceRecorded}} {
			c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: cassettes, Target: tc.target, Extra: tc.extra, Pace: pace, Known: crtarget.KnownFindings()})
			if err != nil {
				t.Fatalf("NewCampaign %s, pace %s: got %v, want nil", tc.target.Name, pace, err)
			}
			camps = append(camps, &pairCampaign{target: tc.target.Name, pace: pace, c: c})
		}
	}
	t.Run(fmt.Sprintf("same-outcome - %d fault-free runs of both targets, paces and client paths against their reference pairs - pass", n), func(t *testing.T) {
		judgePairs(t, n, camps)
	})
}

// judgePairs runs TestFaultFreePairs's n runs round camps and logs its
// summary (logPairs).
func judgePairs(t *testing.T, n int, camps []*pairCampaign) {
	t.Helper()
	nCassettes := len(camps[0].c.Cassettes())
	tally := map[string]*pairTally{}
	refs := map[string][]*oracle.Reference{} // key → the references its runs were judged against, in order
	var reports []string
	start := time.Now()
	for i := range n {
		// the runs go round the campaigns first, so that a few cover both
		// targets and paces, then round the paths, then the cassettes
		pc := camps[i%len(camps)]
		k := i / len(camps)
		watchList, cassette := k%2 == 1, (k/2)%nCassettes
		seed := uint64(i + 1)
		where := fmt.Sprintf("%s, pace %s, WatchList %v, cassette %s, seed %d", pc.target, pc.pace, watchList, pc.c.Cassettes()[cassette], seed)
		runStart := time.Now()
		out := pc.c.CheckSeed(t, cassette, watchList, faults.Plan{}, seed)
		tk := fmt.Sprintf("%-9s pace %-8s WatchList %-5v", pc.target, pc.pace, watchList)
		if tally[tk] == nil {
			tally[tk] = &pairTally{}
		}
		tl := tally[tk]
		tl.runs++
		tl.took += time.Since(runStart)
		tl.writes += len(out.Observation.Writes)
		if ref := out.Reference; ref != nil {
			key := fmt.Sprintf("%s, pace %s, WatchList %v, cassette %s", pc.target, pc.pace, watchList, pc.c.Cassettes()[cassette])
			if rs := refs[key]; len(rs) == 0 || rs[len(rs)-1] != ref {
				refs[key] = append(rs, ref)
			}
		}
		if out.Known != "" {
			tl.known++
			t.Logf("%s: known finding %s (not a failure):\n%s", where, out.Known, out.Report)
		}
		if why, ok := out.NotJudged["same-outcome"]; ok {
			t.Errorf("%s: same-outcome: got not judged (%s), want judged", where, why)
		}
		if err := out.Results["same-outcome"]; err != nil || out.Failed() {
			tl.reports++
			reports = append(reports, fmt.Sprintf("%s:\n%s", where, out.Report))
			if !errors.Is(err, oracle.ErrDiffersFromReference) && err != nil {
				t.Errorf("%s: same-outcome: got %v, want nil or a difference", where, err)
			}
			t.Errorf("%s: got a report, want none:\n%s", where, out.Report)
		}
	}
	took := time.Since(start)
	logPairs(t, n, took, tally, refs, len(reports))
}

// logPairs logs TestFaultFreePairs's summary: the runs, reports and wall
// time per target, pace and client path. Per key, it logs how often
// confirmation runs widened its reference, and the masks it learned beyond
// DefaultMasks.
func logPairs(t *testing.T, n int, took time.Duration, tally map[string]*pairTally, refs map[string][]*oracle.Reference, reports int) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "fault-free pairs: %d runs judged in %v (%.1f a second, reference and confirmation runs included): %d reports\n",
		n, took.Round(time.Millisecond), float64(n)/took.Seconds(), reports)
	byPace := map[string]int{}
	for _, k := range sortedKeys(tally) {
		tl := tally[k]
		fmt.Fprintf(&b, "  %s  runs %4d  writes %5d  reports %d  known %d  %v\n", k, tl.runs, tl.writes, tl.reports, tl.known, tl.took.Round(time.Millisecond))
		for _, pace := range []string{replayer.PaceMax.String(), replayer.PaceRecorded.String()} {
			if strings.Contains(k, "pace "+pace+" ") {
				byPace[pace] += tl.runs
			}
		}
	}
	fmt.Fprintf(&b, "  by pace: %s %d, %s %d\n", replayer.PaceMax, byPace[replayer.PaceMax.String()], replayer.PaceRecorded, byPace[replayer.PaceRecorded.String()])
	for _, k := range sortedKeys(refs) {
		rs := refs[k]
		fmt.Fprintf(&b, "  reference %s: widened %d times; masks beyond DefaultMasks: %q\n", k, len(rs)-1, learned(rs[len(rs)-1].Masks))
	}
	t.Log(b.String())
}

// learned is m without the fields DefaultMasks masks already.
func learned(m oracle.Masks) string {
	var out []string
	for _, line := range strings.Split(m.String(), "\n") {
		_, path, _ := strings.Cut(line, " ")
		path = strings.TrimSuffix(path, "(every object)") // a resource masked whole (Events)
		isDefault := false
		for _, d := range oracle.DefaultMasks {
			isDefault = isDefault || path == d.Path || strings.HasPrefix(path, d.Path+".") || strings.HasPrefix(path, d.Path+"[")
		}
		if line != "" && !isDefault {
			out = append(out, line)
		}
	}
	return strings.Join(out, "; ")
}

// sortedKeys returns m's keys, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
