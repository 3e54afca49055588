package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/history"
)

// The RayCluster custom resource of KubeRay, and the scenario
// TestRecordKubeRay records. (examples/kuberay fuzzes its RayCluster
// controller.)
var (
	rayClusterGVR = schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayclusters"}
	// kuberayResources are the RayCluster controller's own kind and every
	// kind it watches (KubeRay's controllers/ray/raycluster_controller.go
	// SetupWithManager: Owns Pods and Services).
	kuberayResources = []history.Resource{
		{Group: "ray.io", Version: "v1", Resource: "rayclusters"},
		{Version: "v1", Resource: "pods"},
		{Version: "v1", Resource: "services"},
	}
)

const (
	// kuberayModule and kuberayVersion are the KubeRay release
	// examples/kuberay imports; its RayCluster CRD is read from that
	// module's zip (config/crd/bases).
	kuberayModule  = "github.com/ray-project/kuberay/ray-operator"
	kuberayVersion = "v1.5.0"
	// kuberayExample is the example module that requires kuberayModule.
	kuberayExample = "../examples/kuberay"
	// kuberayNS is the namespace of the recorded RayClusters.
	kuberayNS = "e2e-kuberay"
	// rayImage is the Ray image of the recorded clusters' containers.
	rayImage = "rayproject/ray:2.46.0"
)

// TestRecordKubeRay records what a user of KubeRay does to RayClusters.
// KubeRay's RayCluster CRD, from the module examples/kuberay requires, is
// applied to a real kube-apiserver of its own. It records on both client
// paths, as TestRecordECK does. A RayCluster is created, its worker group
// scaled from 2 to 3 replicas, a worker setting changed, the cluster
// suspended and resumed, then deleted and created again under its name.
// No operator runs: the recording holds the user's actions only, and in
// the replay the operator's writes (Pods, Services, statuses) are the
// fuzzed target's. Under -update the recordings become
// examples/kuberay's cassettes.
func TestRecordKubeRay(t *testing.T) {
	crd := func(ctx context.Context) (string, error) { return kuberayCRD(ctx, "ray.io_rayclusters.yaml") }
	oc := startOperatorCluster(t, kuberayNS, operatorCRD{crd, rayClusterGVR})
	c, ctx := oc.c, t.Context()
	user := kuberayActor{crUser{cs: oc.cs, dyn: oc.dyn, pause: actorPause, gvr: rayClusterGVR, ns: kuberayNS}}
	// What exists before the recording: a small cluster, one worker.
	if err := user.create(ctx, rayCluster("static", 1, "1")); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	recs, want := oc.recordWhile(t, outDir, "rayclusters", kuberayResources, user.mutate)
	for _, r := range recs {
		files, h, err := loadHistory(r.out)
		if err != nil {
			t.Fatalf("%s: load %s: got error %v, want none", r.name, r.out, err)
		}
		t.Run("record kuberay - "+r.name+" - history ends at the real final state, the raycluster recreated - pass", func(t *testing.T) {
			checkFinalStates(t, h, kuberayResources, want)
			l, _ := h.Log(kuberayResources[0])
			if err := checkRecreatedKey(l, kuberayNS+"/raycluster"); err != nil {
				t.Error(err)
			}
		})
		checkReplays(t, h, want)
		checkSequenceAtLeast(t, "replay sequence - kuberay "+r.name, files, h, 1, 7)
		checkShippable(t, "record kuberay - "+r.name, c.Token, r.out, filepath.Join(kuberayExample, "testdata", r.file), outDir, r.logDir)
	}
}

// kuberayCRD returns the path of the CRD file in the KubeRay module that
// examples/kuberay requires (config/crd/bases), downloaded through the Go
// module proxy.
func kuberayCRD(ctx context.Context, file string) (string, error) {
	return moduleFile(ctx, kuberayExample, kuberayModule, kuberayVersion, "config/crd/bases/"+file)
}

// rayContainer is a Ray container of the scenario's image.
func rayContainer(name string) map[string]any {
	return map[string]any{"name": name, "image": rayImage,
		"resources": map[string]any{"limits": map[string]any{"cpu": "1", "memory": "2Gi"}, "requests": map[string]any{"cpu": "1", "memory": "2Gi"}}}
}

// rayCluster returns a RayCluster of the scenario's namespace: a head and
// one worker group "workers" of replicas, each worker started with
// num-cpus. No autoscaling, no GCS fault tolerance, no ingress: the
// controller talks to the Kubernetes API only.
func rayCluster(name string, replicas int64, numCPUs string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(rayClusterGVR.GroupVersion().String())
	u.SetKind("RayCluster")
	u.SetNamespace(kuberayNS)
	u.SetName(name)
	u.Object["spec"] = map[string]any{
		"rayVersion": "2.46.0",
		"headGroupSpec": map[string]any{
			"rayStartParams": map[string]any{"dashboard-host": "0.0.0.0"},
			"template":       map[string]any{"spec": map[string]any{"containers": []any{rayContainer("ray-head")}}},
		},
		"workerGroupSpecs": []any{map[string]any{
			"groupName":      "workers",
			"replicas":       replicas,
			"minReplicas":    int64(1),
			"maxReplicas":    int64(5),
			"rayStartParams": map[string]any{"num-cpus": numCPUs},
			"template":       map[string]any{"spec": map[string]any{"containers": []any{rayContainer("ray-worker")}}},
		}},
	}
	return u
}

// kuberayActor is the RayCluster scenario's user.
type kuberayActor struct{ crUser }

// workerGroup returns a change of the first worker group's field to v.
func workerGroup(field string, v any) func(*unstructured.Unstructured) error {
	return func(u *unstructured.Unstructured) error {
		groups, _, err := unstructured.NestedSlice(u.Object, "spec", "workerGroupSpecs")
		if err != nil || len(groups) == 0 {
			return fmt.Errorf("no worker group (%v)", err)
		}
		g := groups[0].(map[string]any)
		if field == "num-cpus" {
			g["rayStartParams"] = map[string]any{"num-cpus": v}
		} else {
			g[field] = v
		}
		return unstructured.SetNestedSlice(u.Object, groups, "spec", "workerGroupSpecs")
	}
}

// mutate is the recorded scenario, what a KubeRay user does. The
// raycluster is created (a head, 2 workers), its worker group scaled to
// 3, its workers' num-cpus changed (1 to 2). It is suspended and resumed.
// Then it is deleted and created again under its name (a new UID).
func (a kuberayActor) mutate(ctx context.Context) error {
	steps := []func() error{
		func() error { return a.create(ctx, rayCluster("raycluster", 2, "1")) },
		func() error { return a.update(ctx, "raycluster", workerGroup("replicas", int64(3))) },
		func() error { return a.update(ctx, "raycluster", workerGroup("num-cpus", "2")) },
		func() error { return a.update(ctx, "raycluster", setField(true, "spec", "suspend")) },
		func() error { return a.update(ctx, "raycluster", setField(false, "spec", "suspend")) },
		func() error { return a.delete(ctx, "raycluster") },
		func() error { return a.create(ctx, rayCluster("raycluster", 2, "1")) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}
