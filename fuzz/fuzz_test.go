package fuzz

import (
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/targets"
)

// realCassettes are the recorded cassettes the fuzz tests replay.
var realCassettes = Glob("../cassettes/real-*.yaml")

func FuzzInformer(f *testing.F) {
	Run(f, Options{Cassettes: realCassettes})
}

func FuzzReflectorDeltaFIFO(f *testing.F) {
	target, _ := targets.Lookup("reflector-deltafifo")
	Run(f, Options{Cassettes: realCassettes, Target: target})
}

func FuzzReflectorRealFIFO(f *testing.F) {
	target, _ := targets.Lookup("reflector-realfifo")
	Run(f, Options{Cassettes: realCassettes, Target: target})
}
