package actors_test

import "github.com/lwreplay/lwreplay/internal/differential"

// knownDifferences are the differences between the real cluster and the
// replay with actors that TestDifferential expects, each with its reason;
// docs/replayer.md ("The cluster's own controllers: differential") lists
// them.
var knownDifferences = []differential.Known{}
