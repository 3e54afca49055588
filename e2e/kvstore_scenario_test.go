package e2e

import (
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/lwreplay/lwreplay/history"
)

// The KVStore custom resource of examples/kvstore (its CRD is that
// example's testdata/crd.yaml), and the scenario TestRecordKVStore
// records. The scenario is a user's intent only: a KVStore created with
// 3 replicas, and later scaled down to 1. No controller runs on the
// recording's cluster. In a replay the operator is the target, and the
// cluster's own controllers (actors) make the StatefulSet's pods and
// volumes.
var (
	kvStoreCRD = "../examples/kvstore/testdata/crd.yaml"
	kvStoreGVR = schema.GroupVersionResource{Group: "kv.lwreplay.dev", Version: "v1", Resource: "kvstores"}
	// kvStoreResources are the resources TestRecordKVStore records.
	// They are the operator's own kind, and every kind it or the actors
	// it runs with make for it. Those are empty on the recording's
	// cluster, but recorded: the replay serves their initial state as
	// the cluster had it.
	kvStoreResources = []history.Resource{
		{Group: "kv.lwreplay.dev", Version: "v1", Resource: "kvstores"},
		{Group: "apps", Version: "v1", Resource: "statefulsets"},
		{Version: "v1", Resource: "services"},
		{Version: "v1", Resource: "persistentvolumeclaims"},
		{Version: "v1", Resource: "pods"},
	}
)

const (
	// kvStoreFixtures is where -update puts TestRecordKVStore's
	// recordings: examples/kvstore replays them to its operator.
	kvStoreFixtures = "../examples/kvstore/testdata"
	// kvStoreNS is the namespace of the recorded KVStore.
	kvStoreNS = "e2e-kvstore"
	// kvStoreName is the recorded KVStore.
	kvStoreName = "demo"
	// kvStoreScaleAfter is how long the KVStore runs at 3 replicas
	// before the scale-down. In a replay paced as recorded, it is the
	// virtual time the actors have to make its 3 pods ready.
	kvStoreScaleAfter = 15 * time.Second
)

// kvStoreActor is the scenario's user: they create a KVStore and scale
// it down.
type kvStoreActor struct {
	dyn   dynamic.Interface
	pause time.Duration
}

// mutate is the recorded scenario: KVStore demo created with 3 replicas;
// kvStoreScaleAfter later, its spec.replicas patched to 1.
func (a kvStoreActor) mutate(ctx context.Context) error {
	kvs := a.dyn.Resource(kvStoreGVR).Namespace(kvStoreNS)
	kv := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kvStoreGVR.GroupVersion().String(),
		"kind":       "KVStore",
		"metadata":   map[string]any{"namespace": kvStoreNS, "name": kvStoreName},
		"spec":       map[string]any{"replicas": int64(3)},
	}}
	if _, err := kvs.Create(ctx, kv, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create kvstore %s: %w", kvStoreName, err)
	}
	time.Sleep(kvStoreScaleAfter)
	if _, err := kvs.Patch(ctx, kvStoreName, types.MergePatchType, []byte(`{"spec":{"replicas":1}}`), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("scale kvstore %s down: %w", kvStoreName, err)
	}
	time.Sleep(a.pause)
	return nil
}

// kvStoreRealStates lists every recorded resource of the cluster, keyed
// by resource name.
func kvStoreRealStates(ctx context.Context, dyn dynamic.Interface) (map[string]map[string]map[string]any, error) {
	out := map[string]map[string]map[string]any{}
	for _, r := range kvStoreResources {
		_, st, err := realState(ctx, dyn, schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}, "")
		if err != nil {
			return nil, err
		}
		out[r.Resource] = st
	}
	return out, nil
}

// kvStoreCaughtUp says whether the cassette at path loads, and holds
// a log of every recorded resource that ends at want's keys and
// resourceVersions. With nil want, started logs are enough.
func kvStoreCaughtUp(path string, want map[string]map[string]map[string]any) (bool, string) {
	_, h, err := loadHistory(path)
	if err != nil {
		return false, err.Error()
	}
	for _, r := range kvStoreResources {
		l, ok := h.Log(r)
		if !ok {
			return false, "no log for " + r.String() + " yet"
		}
		if want == nil {
			continue
		}
		got, err := historyState(l)
		if err != nil {
			return false, err.Error()
		}
		if g, w := stateSummary(got), stateSummary(want[r.Resource]); strings.Join(g, " ") != strings.Join(w, " ") {
			return false, fmt.Sprintf("%s: got %d objects %q, want %d %q", r.Resource, len(g), g, len(w), w)
		}
	}
	return true, ""
}

// checkScaledDown says whether the kvstores log shows the KVStore added
// at 3 replicas, then modified to 1.
func checkScaledDown(l *history.Log) error {
	key := kvStoreNS + "/" + kvStoreName
	var steps []string
	for _, e := range l.Events {
		if e.Object.Key() != key {
			continue
		}
		var replicas string
		switch {
		case strings.Contains(string(e.Object.Raw), `"replicas":3`):
			replicas = "3"
		case strings.Contains(string(e.Object.Raw), `"replicas":1`):
			replicas = "1"
		}
		steps = append(steps, string(e.Type)+":"+replicas)
	}
	if got, want := strings.Join(steps, " "), string(history.Added)+":3 "+string(history.Modified)+":1"; got != want {
		return fmt.Errorf("%s: got %q, want %q", key, got, want)
	}
	return nil
}
