package fuzz

import (
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
)

// Names an earlier release had in fuzz, kept for the tests users wrote on
// them. Each is a thin wrapper of its new home.

// Spec is one run of a target against a replay (harness.Spec).
//
// Deprecated: use harness.Spec.
type Spec = harness.Spec

// Observe runs s once and returns what the run saw (harness.Observe).
//
// Deprecated: use harness.Observe.
func Observe(t *testing.T, s Spec) *Observation { return harness.Observe(t, s) }

// Judge runs the named invariants, or all, on o (oracle.Judge).
//
// Deprecated: use oracle.Judge.
func Judge(o *Observation, names ...string) map[string]error { return oracle.Judge(o, names...) }

// LookupTarget returns the built-in target called name (targets.Lookup).
//
// Deprecated: use targets.Lookup.
func LookupTarget(name string) (Target, bool) { return targets.Lookup(name) }

// QuietClientGo silences client-go's process-wide logging and error
// handlers until restore is called (harness.QuietClientGo).
//
// Deprecated: use harness.QuietClientGo.
func QuietClientGo() (restore func()) { return harness.QuietClientGo() }
