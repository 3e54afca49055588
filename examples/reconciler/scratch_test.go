package reconciler

import (
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
)

func TestScratch(t *testing.T) {
	c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: cassettes, Target: target("children"), Extra: []fuzz.Invariant{oneChildPerParent}})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"close-watch:after=5,watch=1 recreate:object=0,watch=2", "close-watch:after=5,watch=1 recreate:object=3,watch=2", "crash-after-write:write=4 recreate:object=0,watch=2"} {
		for i := range c.Cassettes() {
			plan, _ := faults.ParseText(text)
			out := c.CheckPlan(t, i, true, plan)
			t.Logf("%s cassette %d: failed %v fired %v\n%v", text, i, out.Failed(), out.Observation.Fired, out.Results[oneChildPerParent.Name])
		}
	}
}
