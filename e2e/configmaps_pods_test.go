package e2e

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// minMutations is how many creates, updates and deletes a recording of
// scenario one must span.
const minMutations = 50

// requestFacts counts kinds of recorded requests per resource.
type requestFacts struct {
	watchLists, lists, continues, watches int
	limits                                map[string]int // limit parameter → LIST pages
}

func factsOf(files []*cassette.File) map[string]*requestFacts {
	out := map[string]*requestFacts{}
	for _, f := range files {
		for _, i := range f.Interactions {
			u, err := url.Parse(i.URL)
			if err != nil {
				continue
			}
			q, ok, err := history.ParseRequestInfo(u)
			if err != nil || !ok {
				continue
			}
			fa := out[q.Resource.Resource]
			if fa == nil {
				fa = &requestFacts{limits: map[string]int{}}
				out[q.Resource.Resource] = fa
			}
			switch {
			case q.IsWatchList():
				fa.watchLists++
			case q.Watch:
				fa.watches++
			default:
				fa.lists++
				fa.limits[u.Query().Get("limit")]++
				if q.Continue != "" {
					fa.continues++
				}
			}
		}
	}
	return out
}

// checkRecreated fails t unless, in every namespace, the configmaps log
// deletes the phoenix configmap and then adds it again with a new UID.
func checkRecreated(t *testing.T, l *history.Log, namespaces []string) {
	t.Helper()
	for _, ns := range namespaces {
		key := ns + "/" + phoenix
		deletedUID, found := "", false
		for _, e := range l.Events {
			if e.Object.Key() != key {
				continue
			}
			switch {
			case e.Type == history.Deleted:
				deletedUID = e.Object.UID
			case e.Type == history.Added && deletedUID != "":
				found = e.Object.UID != deletedUID && e.Object.UID != ""
				if !found {
					t.Errorf("%s: added again with UID %q, want a UID other than the deleted %q", key, e.Object.UID, deletedUID)
				}
			}
		}
		if !found {
			t.Errorf("%s: got no DELETED then ADDED with a new UID in the history, want one", key)
		}
	}
}

func TestRecordConfigMapsAndPods(t *testing.T) {
	c := sharedCluster(t)
	ctx := t.Context()
	cs, err := kubernetes.NewForConfig(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	w := &workload{cs: cs, ns: []string{"e2e-alpha", "e2e-beta"}}
	if err := ensureNamespaces(ctx, cs, w.ns...); err != nil {
		t.Fatal(err)
	}
	// 2×9 configmaps (and the apiserver's own in kube-system): a LIST in
	// pages of 7 takes at least three pages.
	if err := w.prepopulate(ctx, 8, 4); err != nil {
		t.Fatal(err)
	}
	kubeconfig := kubeconfigFor(t, c)
	outDir := t.TempDir()
	common := []string{"--resource", "configmaps,pods", "--all-namespaces", "--flush-interval", "200ms"}
	recordings := []struct {
		name      string
		file      string
		shipAs    string
		args      []string
		watchList bool
	}{
		{name: "WatchList (default)", file: "watchlist.yaml", shipAs: "real-configmaps-pods-watchlist.yaml", args: common, watchList: true},
		{name: "LIST pages of 7", file: "list-pages.yaml", shipAs: "real-configmaps-pods-list-pages.yaml",
			args: append(append([]string(nil), common...), "--watchlist", "off", "--page-size", "7")},
	}
	recs := make([]*recording, len(recordings))
	for k, r := range recordings {
		recs[k] = startRecording(t, kubeconfig, filepath.Join(outDir, r.file), r.args...)
	}
	for k, r := range recordings {
		waitFor(t, r.name+": the recording has both resources' initial state", func() (bool, string) {
			if recs[k].exited() {
				t.Fatalf("%s: lwreplay record exited early: %v\n%s", r.name, recs[k].err, recs[k].output())
			}
			return started(recs[k].out, "configmaps", "pods")()
		})
	}
	before := w.ops
	if err := w.mutate(ctx); err != nil {
		t.Fatal(err)
	}
	mutations := opCounts{w.ops.creates - before.creates, w.ops.updates - before.updates, w.ops.deletes - before.deletes}
	t.Logf("mutations while recording: %v", mutations)
	if mutations.total() < minMutations {
		t.Fatalf("mutations: got %d, want at least %d", mutations.total(), minMutations)
	}
	want := realStates(t, dyn, "", "configmaps", "pods")
	for k, r := range recordings {
		waitFor(t, r.name+": the recording has caught up with the cluster", caughtUp(recs[k].out, want))
		recs[k].interrupt(t)
		t.Logf("%s: %s", r.name, strings.TrimSpace(recs[k].output()))
	}
	want = relisted(t, dyn, "", want)
	for k, r := range recordings {
		out := recs[k].out
		files, h, err := loadHistory(out)
		if err != nil {
			t.Fatalf("%s: load %s: got error %v, want none", r.name, out, err)
		}
		t.Run("record - "+r.name+" - history ends at the real final state - pass", func(t *testing.T) {
			for _, res := range []string{"configmaps", "pods"} {
				l, ok := logOf(h, res)
				if !ok {
					t.Fatalf("%s: got no log, want one", res)
				}
				got, err := historyState(l)
				if err != nil {
					t.Fatal(err)
				}
				compareStates(t, res+" history final state", got, want[res])
			}
			cms, _ := logOf(h, "configmaps")
			checkRecreated(t, cms, w.ns)
			events := 0
			for _, l := range h.Logs {
				events += len(l.Events)
			}
			if events < minMutations {
				t.Errorf("events in the history: got %d, want at least %d", events, minMutations)
			}
		})
		t.Run("record - "+r.name+" - requests as asked - pass", func(t *testing.T) {
			facts := factsOf(files)
			for _, res := range []string{"configmaps", "pods"} {
				fa := facts[res]
				if fa == nil {
					t.Fatalf("%s: got no requests, want some", res)
				}
				l, _ := logOf(h, res)
				if r.watchList {
					if fa.watchLists == 0 || fa.lists != 0 || l.Lists != 0 {
						t.Errorf("%s: got %d WatchList streams and %d LIST pages (history %d), want WatchList and no LIST", res, fa.watchLists, fa.lists, l.Lists)
					}
					continue
				}
				if fa.watchLists != 0 || fa.watches == 0 || fa.lists != fa.limits["7"] {
					t.Errorf("%s: got %d WatchList streams, %d watches, LIST limits %v, want LIST pages of 7 then WATCH", res, fa.watchLists, fa.watches, fa.limits)
				}
			}
			if r.watchList {
				return
			}
			cms, _ := logOf(h, "configmaps")
			if fa := facts["configmaps"]; cms.Lists < 3 || fa.continues < 2 {
				t.Errorf("configmaps LIST chain: got %d pages (%d with continue), want at least 3 (2)", cms.Lists, fa.continues)
			}
		})
		checkReplays(t, h, want)
		t.Run("replay sequence - "+r.name+" - answers agree with the recorded ones - pass", func(t *testing.T) {
			st := checkSequence(t, files, h)
			t.Logf("compared %d lists, %d watches (%d frames), %d errors, %d discovery answers", st.lists, st.watches, st.frames, st.errors, st.discovery)
			if st.watches < 2 || st.frames < minMutations {
				t.Errorf("compared: got %d watches and %d frames, want at least 2 and %d", st.watches, st.frames, minMutations)
			}
		})
		t.Run("record - "+r.name+" - no credentials written - pass", func(t *testing.T) {
			if n := assertNoSecrets(t, c.Token, outDir, recs[k].logDir); n == 0 {
				t.Errorf("files scanned: got 0, want the recording")
			}
		})
		t.Run("record - "+r.name+" - cassette small enough to ship - pass", func(t *testing.T) {
			st, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			if st.Size() > maxShipSize {
				t.Errorf("size: got %d bytes, want at most %d", st.Size(), maxShipSize)
			}
			shipCassette(t, out, r.shipAs)
		})
	}
}
