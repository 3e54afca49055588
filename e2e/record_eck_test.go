package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/internal/cluster"
)

// eckFixtures is where -update puts TestRecordECK's recordings:
// examples/eck replays them to ECK's Beat controller.
const eckFixtures = eckExample + "/testdata"

// TestRecordECK records what a user of the Elastic Cloud on Kubernetes
// operator does to Beats. ECK's Beat CRD, from the module examples/eck
// requires, is applied to a real kube-apiserver of its own. It records
// with lwreplay record on both client paths: WatchList, and LIST in
// pages of 2 then WATCH. Beside Beats it records every kind the Beat
// controller watches: DaemonSets, Deployments, Pods, Secrets. A Beat is
// upgraded, and another created from a config Secret and scaled. The
// Secret changes. A Beat is deleted and created again under its name. No
// operator runs: the recording holds the user's actions only, and in the
// replay the operator's writes are the fuzzed target's. Each recording's
// history ends at the real final state, holds the recreated Beat, and
// replays to its recorded answers. Under -update the recordings become
// examples/eck's cassettes.
func TestRecordECK(t *testing.T) {
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
	crd, err := eckBeatCRD(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := applyCRD(ctx, dyn, crd, beatGVR); err != nil {
		t.Fatal(err)
	}
	if err := ensureNamespaces(ctx, cs, eckNS); err != nil {
		t.Fatal(err)
	}
	actor := eckActor{crUser{cs: cs, dyn: dyn, pause: actorPause, gvr: beatGVR, ns: eckNS, secret: eckConfigSecret, key: "beat.yml", config: uptimeConfig}}
	if err := actor.prepopulate(ctx); err != nil {
		t.Fatal(err)
	}
	kubeconfig := kubeconfigFor(t, c)
	outDir := t.TempDir()
	var names []string
	for _, r := range eckResources {
		n := r.Resource
		if r.Group != "" {
			n += "." + r.Group
		}
		names = append(names, n)
	}
	recs := recordBothPaths(t, kubeconfig, outDir, "beats", strings.Join(names, ","), func(path string) (bool, string) { return eckCaughtUp(path, nil) })
	if err := actor.mutate(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := eckRealStates(ctx, dyn)
	if err != nil {
		t.Fatal(err)
	}
	stopCaughtUp(t, recs, func(path string) (bool, string) { return eckCaughtUp(path, want) })
	for _, r := range recs {
		files, h, err := loadHistory(r.out)
		if err != nil {
			t.Fatalf("%s: load %s: got error %v, want none", r.name, r.out, err)
		}
		t.Run("record eck - "+r.name+" - history ends at the real final state, the metrics beat recreated - pass", func(t *testing.T) {
			checkFinalStates(t, h, eckResources, want)
			l, _ := h.Log(eckResources[0])
			if err := checkRecreatedKey(l, eckNS+"/metrics"); err != nil {
				t.Error(err)
			}
		})
		checkReplays(t, h, want)
		checkSequenceAtLeast(t, "replay sequence - eck "+r.name, files, h, 1, 8)
		checkShippable(t, "record eck - "+r.name, c.Token, r.out, filepath.Join(eckFixtures, r.file), outDir, r.logDir)
	}
}
