package harness

import (
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/replayer"
)

// writesOf is the replay's write log as an Observation holds it: the
// oracle reads no replayer type (it judges runs of any replay), so each
// replayer.Write becomes the oracle.Write of the same fields.
func writesOf(log []replayer.Write) []oracle.Write {
	if len(log) == 0 {
		return nil
	}
	out := make([]oracle.Write, len(log))
	for i, w := range log {
		out[i] = oracle.Write{At: w.At, Verb: w.Verb, Subresource: w.Subresource, Resource: w.Resource, Key: w.Key,
			RVBefore: w.RVBefore, RVAfter: w.RVAfter, Code: w.Code, Reason: string(w.Reason), DryRun: w.DryRun, Event: w.Event}
	}
	return out
}
