package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/cluster"
)

// trustFixtures is where -update puts TestRecordTrustManager's
// recordings: examples/trustmanager replays them to trust-manager.
const trustFixtures = "../examples/trustmanager/testdata"

// trustResources are what trust-manager's Bundle controller watches
// (pkg/bundle/controller.go: Bundles, Namespaces, ConfigMaps and Secrets
// of the trust namespace, and the metadata of its target ConfigMaps in
// every namespace), with their logs' names in a history.
var trustResources = []struct {
	gvr schema.GroupVersionResource
	res history.Resource
}{
	{bundleGVR, bundleResource},
	{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, history.Resource{Version: "v1", Resource: "configmaps"}},
	{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, history.Resource{Version: "v1", Resource: "namespaces"}},
	{schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, history.Resource{Version: "v1", Resource: "secrets"}},
}

// TestRecordTrustManager records what cert-manager's trust-manager
// watches: Bundles, ConfigMaps, Namespaces and Secrets, every namespace.
// The Bundle CRD, from the module examples/trustmanager requires, is
// applied to a real kube-apiserver of its own. It records with lwreplay
// record on both client paths (WatchList, and LIST in pages of 2 then
// WATCH). Meanwhile a user creates and changes Bundles, their sources and
// namespaces. The user deletes a Bundle and creates it again under its
// name. trust-manager does not run: its writes are the target's in a
// replay. Each recording's history ends at the real final state of every
// resource, holds the recreated Bundle, and replays to its recorded
// answers. Under -update the recordings become examples/trustmanager's
// cassettes.
func TestRecordTrustManager(t *testing.T) {
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
	crd, err := bundleCRDPath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := applyCRD(ctx, dyn, crd, bundleGVR); err != nil {
		t.Fatal(err)
	}
	certs, err := newTrustCerts()
	if err != nil {
		t.Fatal(err)
	}
	actor := trustActor{cs: cs, dyn: dyn, certs: certs, pause: actorPause}
	if err := actor.prepopulate(ctx); err != nil {
		t.Fatal(err)
	}
	kubeconfig := kubeconfigFor(t, c)
	outDir := t.TempDir()
	recs := recordBothPaths(t, kubeconfig, outDir, "trustmanager", "bundles.trust.cert-manager.io,configmaps,namespaces,secrets", func(path string) (bool, string) { return trustCaughtUp(path, nil) })
	if err := actor.mutate(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]map[string]any{}
	for _, tr := range trustResources {
		_, st, err := realState(ctx, dyn, tr.gvr, "")
		if err != nil {
			t.Fatal(err)
		}
		want[tr.res.Resource] = st
	}
	stopCaughtUp(t, recs, func(path string) (bool, string) { return trustCaughtUp(path, want) })
	for _, r := range recs {
		files, h, err := loadHistory(r.out)
		if err != nil {
			t.Fatalf("%s: load %s: got error %v, want none", r.name, r.out, err)
		}
		t.Run("record trust-manager - "+r.name+" - history ends at the real final state, the corp bundle recreated - pass", func(t *testing.T) {
			for _, tr := range trustResources {
				l, ok := h.Log(tr.res)
				if !ok {
					t.Fatalf("%s: got no log, want one", tr.res.Resource)
				}
				got, err := historyState(l)
				if err != nil {
					t.Fatal(err)
				}
				compareStates(t, tr.res.Resource+" history final state", got, want[tr.res.Resource])
			}
			l, _ := h.Log(bundleResource)
			if err := checkRecreatedKey(l, trustBundleName); err != nil {
				t.Error(err)
			}
		})
		checkReplays(t, h, want)
		checkSequenceAtLeast(t, "replay sequence - trust-manager "+r.name, files, h, 4, 10)
		checkShippable(t, "record trust-manager - "+r.name, c.Token, r.out, filepath.Join(trustFixtures, r.file), outDir, r.logDir)
	}
}

// trustCaughtUp says whether the cassette at path loads with a log of
// every trust resource, each ending at want's keys and
// resourceVersions. With nil want, started logs are enough.
func trustCaughtUp(path string, want map[string]map[string]map[string]any) (bool, string) {
	if _, err := os.Stat(path); err != nil {
		return false, err.Error()
	}
	_, h, err := loadHistory(path)
	if err != nil {
		return false, err.Error()
	}
	for _, tr := range trustResources {
		l, ok := h.Log(tr.res)
		if !ok {
			return false, "no log for " + tr.res.Resource + " yet"
		}
		if want == nil {
			continue
		}
		got, err := historyState(l)
		if err != nil {
			return false, err.Error()
		}
		if g, w := stateSummary(got), stateSummary(want[tr.res.Resource]); strings.Join(g, " ") != strings.Join(w, " ") {
			return false, fmt.Sprintf("%s: got %d objects %q, want %d %q", tr.res.Resource, len(g), g, len(w), w)
		}
	}
	return true, ""
}
