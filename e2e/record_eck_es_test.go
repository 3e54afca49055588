package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/history"
)

// The Elasticsearch custom resource of ECK, and the scenario
// TestRecordECKElasticsearch records: Sieve's workload of
// elastic/cloud-on-k8s#5274. (examples/eck/es fuzzes ECK's Elasticsearch
// controller.)
var (
	esGVR = schema.GroupVersionResource{Group: "elasticsearch.k8s.elastic.co", Version: "v1", Resource: "elasticsearches"}
	// eckESResources are the Elasticsearch kind and the kinds its
	// controller watches and writes (ECK's
	// pkg/controller/elasticsearch/elasticsearch_controller.go
	// addWatches: StatefulSets, Pods, Services, ConfigMaps, PDBs,
	// Secrets), and ECK's ElasticsearchAutoscalers.
	eckESResources = []history.Resource{
		{Group: "elasticsearch.k8s.elastic.co", Version: "v1", Resource: "elasticsearches"},
		{Group: "apps", Version: "v1", Resource: "statefulsets"},
		{Version: "v1", Resource: "pods"},
		{Version: "v1", Resource: "services"},
		{Version: "v1", Resource: "configmaps"},
		{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
		{Version: "v1", Resource: "secrets"},
		// Empty, but served: ECK lists them before any StatefulSet change
		// (driver/stateful/autoscaling.go), and fails on a cluster
		// without ECK's ElasticsearchAutoscaler CRD.
		{Group: "autoscaling.k8s.elastic.co", Version: "v1alpha1", Resource: "elasticsearchautoscalers"},
	}
	esAutoscalerGVR = schema.GroupVersionResource{Group: "autoscaling.k8s.elastic.co", Version: "v1alpha1", Resource: "elasticsearchautoscalers"}
)

const (
	// esNS is the namespace of the recorded Elasticsearch.
	esNS = "e2e-eck-es"
	// esPause is the user's wait between two changes: time enough, in
	// the replay's virtual time, for the operator, the StatefulSet
	// controller and the kubelet to reach each count.
	esPause = 20 * time.Second
)

// TestRecordECKElasticsearch records Sieve's workload of
// elastic/cloud-on-k8s#5274, as a user of ECK does it. ECK's
// Elasticsearch CRD, from the module examples/eck requires, is applied
// to a real kube-apiserver of its own. It records on both client paths,
// as TestRecordECK does. An Elasticsearch of one nodeSet exists with
// count 2 when the recording starts; it is scaled to 1, then back to 2,
// a pause between each. No
// operator, StatefulSet controller or kubelet runs: in the replay they
// are the fuzzed target and its actors. Under -update the recordings
// become examples/eck/es's cassettes.
func TestRecordECKElasticsearch(t *testing.T) {
	esCRD := func(ctx context.Context) (string, error) {
		return eckCRD(ctx, "elasticsearch.k8s.elastic.co_elasticsearches.yaml")
	}
	autoscalerCRD := func(ctx context.Context) (string, error) {
		return eckCRD(ctx, "autoscaling.k8s.elastic.co_elasticsearchautoscalers.yaml")
	}
	oc := startOperatorCluster(t, esNS, operatorCRD{esCRD, esGVR}, operatorCRD{autoscalerCRD, esAutoscalerGVR})
	c, ctx := oc.c, t.Context()
	user := crUser{cs: oc.cs, dyn: oc.dyn, pause: esPause, gvr: esGVR, ns: esNS}
	outDir := t.TempDir()
	// The Elasticsearch exists before the recording starts, as the Beat
	// and Agent scenarios' first objects do. The pause lets the apiserver
	// settle the large CRD first: a replay answers a LIST of a resource
	// recorded empty at the history's resourceVersion, which does not
	// move with writes to resources it did not record.
	if err := (crUser{cs: oc.cs, dyn: oc.dyn, pause: 10 * time.Second, gvr: esGVR, ns: esNS}).create(ctx, elasticsearch(2)); err != nil {
		t.Fatal(err)
	}
	recs, want := oc.recordWhile(t, outDir, "elasticsearch", eckESResources, func(ctx context.Context) error { return esScenario(ctx, user) })
	esFixtures := eckExample + "/es/testdata"
	for _, r := range recs {
		files, h, err := loadHistory(r.out)
		if err != nil {
			t.Fatalf("%s: load %s: got error %v, want none", r.name, r.out, err)
		}
		t.Run("record eck elasticsearch - "+r.name+" - history ends at the real final state, count 2 then 1 then 2 - pass", func(t *testing.T) {
			checkFinalStates(t, h, eckESResources, want)
			l, _ := h.Log(eckESResources[0])
			var counts []int64
			objs := append([]*history.Object(nil), l.Initial...)
			for _, e := range l.Events {
				objs = append(objs, e.Object)
			}
			for _, o := range objs {
				var u map[string]any
				if err := json.Unmarshal(o.Raw, &u); err != nil {
					t.Fatal(err)
				}
				sets, _, _ := unstructured.NestedSlice(u, "spec", "nodeSets")
				if len(sets) == 1 {
					n, _ := sets[0].(map[string]any)["count"].(float64)
					counts = append(counts, int64(n))
				}
			}
			if got := counts; len(got) != 3 || got[0] != 2 || got[1] != 1 || got[2] != 2 {
				t.Errorf("nodeSet counts: got %v, want [2 1 2]", got)
			}
		})
		checkReplays(t, h, want)
		// Not on the LIST path: there kube-apiserver answers a LIST of an
		// empty resource at its watch cache's own resourceVersion, which
		// moves per resource (here 76 to 79 for six of them listed at
		// once), and the replay answers each at the history's (71). A gap
		// of the replay's, left open.
		if strings.HasPrefix(r.name, "WatchList") {
			checkSequenceAtLeast(t, "replay sequence - eck elasticsearch "+r.name, files, h, 1, 3)
		}
		checkShippable(t, "record eck elasticsearch - "+r.name, c.Token, r.out, filepath.Join(esFixtures, r.file), outDir, r.logDir)
	}
}

// elasticsearch returns the scenario's Elasticsearch: one nodeSet
// "default" (every role) of count nodes, ES 8.17.0. Its HTTP layer has
// no TLS, so that the fuzz test's fake Elasticsearch answers in plain
// HTTP. Its data volume is an emptyDir (ECK's documented alternative to
// a PersistentVolumeClaim), so no volume provisioner is needed.
func elasticsearch(count int64) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(esGVR.GroupVersion().String())
	u.SetKind("Elasticsearch")
	u.SetNamespace(esNS)
	u.SetName("es")
	volume := map[string]any{"name": "elasticsearch-data", "emptyDir": map[string]any{}}
	container := map[string]any{"name": "elasticsearch", "resources": map[string]any{"limits": map[string]any{"memory": "2Gi"}}}
	u.Object["spec"] = map[string]any{
		"version": "8.17.0",
		"http":    map[string]any{"tls": map[string]any{"selfSignedCertificate": map[string]any{"disabled": true}}},
		"nodeSets": []any{map[string]any{
			"name":        "default",
			"count":       count,
			"config":      map[string]any{"node.store.allow_mmap": false},
			"podTemplate": map[string]any{"spec": map[string]any{"containers": []any{container}, "volumes": []any{volume}}},
		}},
	}
	return u
}

// esScenario is the rest of Sieve's workload of elastic/cloud-on-k8s#5274,
// once the Elasticsearch exists with count 2: a pause, a scale to 1, then
// back to 2, a pause after each.
func esScenario(ctx context.Context, a crUser) error {
	setCount := func(n int64) func(*unstructured.Unstructured) error {
		return func(u *unstructured.Unstructured) error {
			sets, _, err := unstructured.NestedSlice(u.Object, "spec", "nodeSets")
			if err != nil || len(sets) != 1 {
				return err
			}
			sets[0].(map[string]any)["count"] = n
			return unstructured.SetNestedSlice(u.Object, sets, "spec", "nodeSets")
		}
	}
	steps := []func() error{
		func() error { time.Sleep(a.pause); return nil },
		func() error { return a.update(ctx, "es", setCount(1)) },
		func() error { return a.update(ctx, "es", setCount(2)) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}
