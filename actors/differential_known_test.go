package actors_test

import "github.com/lwreplay/lwreplay/internal/differential"

// Reasons of the known differences; docs/replayer.md ("The cluster's own
// controllers: differential") explains each.
const (
	reasonSecondSlice = "the replay's endpointslice controller makes a second, empty EndpointSlice for a Service (open: replay fault)"
	reasonTiming      = "intermediate statuses depend on how the real cluster's writes interleave in real time"
	reasonSlicesSwap  = "the same second EndpointSlice: now and then it, not the first, takes the StatefulSet's endpoints, and the first stays empty (open: replay fault)"
)

// knownDifferences are the differences between the real cluster and the
// replay with actors that TestDifferential expects, each with its reason,
// the first that matches counting.
var knownDifferences = []differential.Known{
	{Resource: "endpointslices", What: differential.OnlyReplay, Reason: reasonSecondSlice},
	{Resource: "endpointslices", Script: "statefulset", What: differential.FinalDiffers, Reason: reasonSlicesSwap},
	{What: differential.StatesDiffer, Reason: reasonTiming},
}

// knownFailures are the scripts that fail on one side, by "side/script",
// with the reason: their objects' differences show in the comparison.
var knownFailures = map[string]string{}
