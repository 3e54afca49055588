package kvstore

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// TestDeterminismActors reruns inputs with the cluster's actors, and
// wants one outcome from each. That is the verdict, its signature, and
// the final served state of the KVStore, its StatefulSet, pods and PVCs.
// The state is each object's name, generation and status. The actors'
// writes in one virtual instant may interleave otherwise (two goroutines
// of one controller), so resourceVersions and generated names are not
// compared. LWREPLAY_RERUNS sets the reruns (default 100; 10 under
// -short).
func TestDeterminismActors(t *testing.T) {
	reruns := 100
	if testing.Short() {
		reruns = 10
	}
	if s := os.Getenv("LWREPLAY_RERUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("LWREPLAY_RERUNS: got %q, want a number", s)
		}
		reruns = n
	}
	late, err := faults.ParseText("delay:ms=65000,at=3")
	if err != nil {
		t.Fatal(err)
	}
	o := options(t, target(t, "kvstore-status-cleanup", WithStatusCleanup()))
	o.Scenarios = false
	c, err := fuzz.NewCampaign(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []struct {
		name   string
		plan   faults.Plan
		failed bool
	}{{"no fault", faults.Plan{}, false}, {"a late watch frame (the planted bug found)", late, true}} {
		t.Run("determinism - "+in.name+" - pass", func(t *testing.T) {
			first := ""
			for i := range reruns {
				out := c.CheckPlan(t, 0, true, in.plan)
				if out.Failed() != in.failed {
					t.Fatalf("rerun %d: got failed %v, want %v\n%s", i, out.Failed(), in.failed, out.Report)
				}
				got := digest(out)
				if i == 0 {
					first = got
					continue
				}
				if got != first {
					t.Fatalf("rerun %d: got\n%s\nwant (the first run's)\n%s", i, got, first)
				}
			}
		})
	}
}

// digest is what TestDeterminismActors compares of a run.
func digest(out *fuzz.Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "failed %v signature %s\n", out.Failed(), out.Signature())
	for _, r := range []history.Resource{kvstores, statefulSets, pods, pvcs} {
		l, ok := out.Observation.Served.Log(r)
		if !ok {
			fmt.Fprintf(&b, "%s: none\n", r.Resource)
			continue
		}
		var lines []string
		for _, o := range l.StateAt(l.End()) {
			lines = append(lines, fmt.Sprintf("%s: %s %s", r.Resource, o.Key(), statusOf(o)))
		}
		slices.Sort(lines)
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
	return b.String()
}

// statusOf is an object's generation and status, as JSON.
func statusOf(o *history.Object) string {
	var v struct {
		Metadata struct {
			Generation int64 `json:"generation"`
		} `json:"metadata"`
		Status json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal(o.Raw, &v); err != nil {
		return "undecodable: " + err.Error()
	}
	return fmt.Sprintf("generation %d status %s", v.Metadata.Generation, v.Status)
}
