package kvstore

import (
	"testing"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/actors"
)

// clusterActors are the cluster's own controllers the runs start beside
// the operator: kube-controller-manager's (the StatefulSet controller
// makes the pods and PVCs, the garbage collector deletes what a deleted
// KVStore owned), a scheduler, a kubelet stand-in and a volume
// provisioner, so that the StatefulSet's pods become ready.
func clusterActors(t testing.TB) []actor.Actor {
	t.Helper()
	acts, err := actors.Registry().Lookup("kube-controller-manager", "scheduler", "kubelet", "volume-provisioner")
	if err != nil {
		t.Fatal(err)
	}
	return acts
}
