package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/cluster"
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
	crd, err := kuberayCRD(ctx, "ray.io_rayclusters.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := applyCRD(ctx, dyn, crd, rayClusterGVR); err != nil {
		t.Fatal(err)
	}
	if err := ensureNamespaces(ctx, cs, kuberayNS); err != nil {
		t.Fatal(err)
	}
	user := kuberayActor{crUser{cs: cs, dyn: dyn, pause: actorPause, gvr: rayClusterGVR, ns: kuberayNS}}
	// What exists before the recording: a small cluster, one worker.
	if err := user.create(ctx, rayCluster("static", 1, "1")); err != nil {
		t.Fatal(err)
	}
	kubeconfig := kubeconfigFor(t, c)
	outDir := t.TempDir()
	var names []string
	for _, r := range kuberayResources {
		n := r.Resource
		if r.Group != "" {
			n += "." + r.Group
		}
		names = append(names, n)
	}
	caughtUp := func(want map[string]map[string]map[string]any) func(string) (bool, string) {
		return func(path string) (bool, string) { return eckCaughtUpOf(kuberayResources, path, want) }
	}
	recs := recordBothPaths(t, kubeconfig, outDir, "rayclusters", strings.Join(names, ","), caughtUp(nil))
	if err := user.mutate(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := eckRealStatesOf(ctx, dyn, kuberayResources)
	if err != nil {
		t.Fatal(err)
	}
	stopCaughtUp(t, recs, caughtUp(want))
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
	cmd := exec.CommandContext(ctx, goTool(), "mod", "download", "-json", kuberayModule+"@"+kuberayVersion)
	cmd.Dir = kuberayExample
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", kuberayModule, kuberayVersion, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: no directory in %q (%v)", kuberayModule, kuberayVersion, out, err)
	}
	return filepath.Join(m.Dir, "config", "crd", "bases", file), nil
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
