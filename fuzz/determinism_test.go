//go:debug randseednop=0

package fuzz

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
)

// rerunsEnv sets how often TestDeterminism re-runs each input (default 3;
// the closing figure of the determinism work is 100).
const rerunsEnv = "LWREPLAY_RERUNS"

// verdict is what must repeat: the story of what fired and the report.
func verdict(out *Outcome) string {
	return fmt.Sprintf("failed %v, expected %v\nfired: %s\nreport: %s", out.Failed(), out.Expected, faults.Story(out.Observation.Fired), out.Report)
}

// rerunCount is how often a determinism test re-runs each input:
// $LWREPLAY_RERUNS, else 3 (2 with -short).
func rerunCount() int {
	if n, err := strconv.Atoi(os.Getenv(rerunsEnv)); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 2
	}
	return 3
}

// namedInput is a named fuzz input of a determinism test.
type namedInput struct {
	name string
	data []byte
}

// planInputs returns, for each plan's text, its input on the first cassette
// with LIST+WATCH and on the second with WatchList.
func planInputs(t *testing.T, plans ...string) []namedInput {
	t.Helper()
	var out []namedInput
	for _, plan := range plans {
		p, err := faults.ParseText(plan)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := faults.Encode(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, namedInput{plan + ", LIST", append([]byte{0, 0}, enc...)}, namedInput{plan + ", WatchList", append([]byte{1, 1}, enc...)})
	}
	return out
}

// repeats runs data on c n times and fails t unless what of each run is
// the same.
func repeats(t *testing.T, c *Campaign, data []byte, n int, what func(*Outcome) string) {
	t.Helper()
	want := what(c.Check(t, data))
	for k := 1; k < n; k++ {
		if got := what(c.Check(t, data)); got != want {
			t.Fatalf("run %d of input %q: got\n%s\nwant (run 0)\n%s", k, data, got, want)
		}
	}
}

// TestDeterminism re-runs inputs, at both levels, and wants the same
// verdict and the same story every time: a run is a function of its input.
// The inputs are ones that find or reproduce failures, and random long
// plans of legal and breaking faults.
func TestDeterminism(t *testing.T) {
	reruns := rerunCount()
	inputs := []namedInput{
		{"tombstone finding (paged LIST, first watch 410 at open)", []byte("000\x86")},
		{"no fault, WatchList", []byte{0, 1}},
		{"no fault, LIST", []byte{1, 0}},
	}
	inputs = append(inputs, planInputs(t, "recreate:object=1,at=3 expire-watch:after=1,at=9", "close-watch:after=2,at=2 stale-list:back=3,at=5")...)
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 12 {
		data := []byte{byte(r.UintN(3)), byte(r.UintN(2))}
		for range 16 {
			data = append(data, byte(r.UintN(256))|0x80)
		}
		inputs = append(inputs, namedInput{fmt.Sprintf("random plan %d", i), data})
	}
	for _, lvl := range []Level{Typed, Wire} {
		c, err := NewCampaign(Options{Cassettes: Glob("../cassettes/real-*.yaml"), AllowBreaking: true, Level: lvl})
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			t.Run(fmt.Sprintf("determinism - %s, %s, %d runs - one verdict - pass", lvl, in.name, reruns), func(t *testing.T) {
				repeats(t, c, in.data, reruns, verdict)
			})
		}
	}
}
