package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/internal/cluster"
)

// TestRecordKVStore records what a user of examples/kvstore's operator
// does. Its KVStore CRD is applied to a real kube-apiserver of its own.
// It records with lwreplay record on both client paths: WatchList, and
// LIST in pages of 2 then WATCH. Beside KVStores it records every kind
// the operator and the cluster's own controllers make for a KVStore:
// StatefulSets, Services, PVCs, Pods. A KVStore is created with 3
// replicas, and later scaled down to 1. No controller runs: the recording
// holds the user's intent. In the replay the operator's writes are the
// fuzzed target's, and the pods and volumes the actors'. Each recording's
// history ends at the real final state, holds the scale-down, and replays
// to its recorded answers; under -update the recordings become
// examples/kvstore's cassettes.
func TestRecordKVStore(t *testing.T) {
	c := cluster.StartT(t)
	ctx := t.Context()
	cs, err := kubernetes.NewForConfig(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := applyCRD(ctx, dyn, kvStoreCRD, kvStoreGVR); err != nil {
		t.Fatal(err)
	}
	if err := ensureNamespaces(ctx, cs, kvStoreNS); err != nil {
		t.Fatal(err)
	}
	kubeconfig := kubeconfigFor(t, c)
	outDir := t.TempDir()
	var names []string
	for _, r := range kvStoreResources {
		n := r.Resource
		if r.Group != "" {
			n += "." + r.Group
		}
		names = append(names, n)
	}
	recs := recordBothPaths(t, kubeconfig, outDir, "kvstores", strings.Join(names, ","), func(path string) (bool, string) { return kvStoreCaughtUp(path, nil) })
	if err := (kvStoreActor{dyn: dyn, pause: actorPause}).mutate(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := kvStoreRealStates(ctx, dyn)
	if err != nil {
		t.Fatal(err)
	}
	stopCaughtUp(t, recs, func(path string) (bool, string) { return kvStoreCaughtUp(path, want) })
	for _, r := range recs {
		files, h, err := loadHistory(r.out)
		if err != nil {
			t.Fatalf("%s: load %s: got error %v, want none", r.name, r.out, err)
		}
		t.Run("record kvstore - "+r.name+" - history ends at the real final state, the kvstore scaled down - pass", func(t *testing.T) {
			checkFinalStates(t, h, kvStoreResources, want)
			l, _ := h.Log(kvStoreResources[0])
			if err := checkScaledDown(l); err != nil {
				t.Error(err)
			}
		})
		checkReplays(t, h, want)
		checkSequenceAtLeast(t, "replay sequence - kvstore "+r.name, files, h, 1, 2)
		checkShippable(t, "record kvstore - "+r.name, c.Token, r.out, filepath.Join(kvStoreFixtures, r.file), outDir, r.logDir)
	}
}
