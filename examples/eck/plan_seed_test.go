package eck

import (
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
)

// agentPlans are the Agent runs kept as regression seeds.
var agentPlans = fuzz.Glob("testdata/plans/*.yaml")

// FuzzAgentPlans runs the Agent controller on the saved plans, each on
// every Agent cassette and client path. apiserver-crashloop.yaml was a
// false alarm (issue 42): the manager's caches time out, ECK's main exits,
// and the kubelet restarts it.
func FuzzAgentPlans(f *testing.F) {
	o := agentOptions(agentTarget(f))
	o.Scenarios = false
	o.Plans = agentPlans
	fuzz.Run(f, o)
}
