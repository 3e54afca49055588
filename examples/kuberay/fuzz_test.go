package kuberay

import (
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
)

// options are the example's fuzz options. They take the RayCluster
// cassettes on both client paths, and Sieve's scenarios from every
// fault-free seed. They add the example's own invariants beside the
// built-in ones. controller-runtime's known bugs are not KubeRay's.
func options(t fuzz.Target) fuzz.Options {
	return fuzz.Options{
		Cassettes: cassettes,
		Resource:  rayClusters,
		Target:    t,
		Scenarios: true,
		Known:     knownFindings(),
		Extra:     []fuzz.Invariant{podsMatchSpec, statusReportsPods},
	}
}

// FuzzRayClusters fuzzes KubeRay's RayCluster controller. go test runs its
// seeds: every cassette and client path, no fault, and the scenarios made
// from each fault-free run. go test -fuzz FuzzRayClusters explores from
// them.
func FuzzRayClusters(f *testing.F) {
	fuzz.Run(f, options(target(f)))
}

// knownFindings are controller-runtime's known bugs (not KubeRay's) and
// KubeRay's own findings (finding_test.go), so that a campaign goes on
// past them.
func knownFindings() []fuzz.Known {
	return append(crtarget.KnownFindings(), staleRestartDuplicateWorker, staleRestartDuplicateHead, heldWatchDuplicateHead)
}
