package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/cluster"
)

// operatorCRD is a CRD an operator's recording applies: its file, found
// by path, and the resource it defines.
type operatorCRD struct {
	path func(ctx context.Context) (string, error)
	gvr  schema.GroupVersionResource
}

// operatorCluster is a real kube-apiserver of its own with an operator's
// CRDs applied and its namespace made, and clients of it.
type operatorCluster struct {
	c   *cluster.Cluster
	cs  kubernetes.Interface
	dyn dynamic.Interface
}

// startOperatorCluster starts a kube-apiserver, applies crds in order
// and makes namespace ns.
func startOperatorCluster(t *testing.T, ns string, crds ...operatorCRD) operatorCluster {
	t.Helper()
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
	for _, crd := range crds {
		path, err := crd.path(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := applyCRD(ctx, dyn, path, crd.gvr); err != nil {
			t.Fatal(err)
		}
	}
	if err := ensureNamespaces(ctx, cs, ns); err != nil {
		t.Fatal(err)
	}
	return operatorCluster{c: c, cs: cs, dyn: dyn}
}

// recordWhile records resources on both client paths into outDir (as
// <stem>-watchlist.yaml and <stem>-list-pages.yaml) while do runs the
// user's actions. It returns the recordings once each has caught up with
// the real final state, and that state.
func (oc operatorCluster) recordWhile(t *testing.T, outDir, stem string, resources []history.Resource, do func(ctx context.Context) error) ([]pathRecording, map[string]map[string]map[string]any) {
	t.Helper()
	var names []string
	for _, r := range resources {
		n := r.Resource
		if r.Group != "" {
			n += "." + r.Group
		}
		names = append(names, n)
	}
	caughtUp := func(want map[string]map[string]map[string]any) func(string) (bool, string) {
		return func(path string) (bool, string) { return eckCaughtUpOf(resources, path, want) }
	}
	recs := recordBothPaths(t, kubeconfigFor(t, oc.c), outDir, stem, strings.Join(names, ","), caughtUp(nil))
	if err := do(t.Context()); err != nil {
		t.Fatal(err)
	}
	want, err := eckRealStatesOf(t.Context(), oc.dyn, resources)
	if err != nil {
		t.Fatal(err)
	}
	stopCaughtUp(t, recs, caughtUp(want))
	return recs, want
}

// moduleFile returns the path of file (slash-separated, within the
// module) in module at version, downloaded through the Go module proxy
// from dir (a module that requires it).
func moduleFile(ctx context.Context, dir, module, version, file string) (string, error) {
	cmd := exec.CommandContext(ctx, goTool(), "mod", "download", "-json", module+"@"+version)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", module, version, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: no directory in %q (%v)", module, version, out, err)
	}
	return filepath.Join(m.Dir, filepath.FromSlash(file)), nil
}
