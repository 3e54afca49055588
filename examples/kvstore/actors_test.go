package kvstore

import (
	"testing"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/actors"
)

// clusterActors are the cluster's own controllers the runs start beside
// the operator. kube-controller-manager's StatefulSet controller makes
// the pods and PVCs. Its garbage collector deletes what a deleted
// KVStore owned. A scheduler, a kubelet stand-in and a volume
// provisioner make the StatefulSet's pods ready.
func clusterActors(t testing.TB) []actor.Actor {
	t.Helper()
	acts, err := actors.Registry().Lookup("kube-controller-manager", "scheduler", "kubelet", "volume-provisioner")
	if err != nil {
		t.Fatal(err)
	}
	return acts
}
