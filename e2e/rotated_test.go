package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/cassette"
)

// TestRecordRotated records with a small --max-size, so that the recording
// goes on in numbered next files. Together they must build the real final
// state. None of them, nor anything else the recorder wrote, may hold the
// cluster's credentials.
func TestRecordRotated(t *testing.T) {
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
	const ns = "e2e-rotate"
	w := &workload{cs: cs, ns: []string{ns}}
	if err := ensureNamespaces(ctx, cs, ns); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	out := filepath.Join(outDir, "rotated.yaml")
	r := startRecording(t, kubeconfigFor(t, c), out,
		"--resource", "configmaps", "--namespace", ns, "--flush-interval", "200ms", "--max-size", "16Ki")
	waitFor(t, "the recording has the initial state", started(outDir, "configmaps"))
	for i := range 30 {
		if err := w.createConfigMap(ctx, ns, fmt.Sprintf("cm-%02d", i), map[string]string{"pad": strings.Repeat(fmt.Sprint(i%10), 1024)}); err != nil {
			t.Fatal(err)
		}
	}
	states := realStates(t, dyn, ns, "configmaps")
	waitFor(t, "the recording has caught up with the cluster", caughtUp(outDir, states))
	r.interrupt(t)
	want := relisted(t, dyn, ns, states)["configmaps"]

	t.Run("record rotated - files build the real final state together - pass", func(t *testing.T) {
		files, h, err := loadHistory(outDir)
		if err != nil {
			t.Fatalf("load %s: got error %v, want none", outDir, err)
		}
		if len(files) < 2 {
			t.Fatalf("files: got %d, want at least 2 (rotated)", len(files))
		}
		l, ok := logOf(h, "configmaps")
		if !ok {
			t.Fatalf("configmaps: got no log, want one")
		}
		got, err := historyState(l)
		if err != nil {
			t.Fatal(err)
		}
		compareStates(t, "history final state", got, want)
		for _, f := range files {
			if _, err := cassette.Load(f.Path); err != nil {
				t.Errorf("%s alone: got error %v, want it to load", f.Path, err)
			}
		}
		t.Logf("%d files, %d events", len(files), len(l.Events))
		checkReplays(t, h, map[string]map[string]map[string]any{"configmaps": want})
		st := checkSequence(t, files, h)
		if st.watches == 0 {
			t.Errorf("watches compared: got 0, want the recorded ones")
		}
	})
	t.Run("record rotated - no credentials written - pass", func(t *testing.T) {
		if n := assertNoSecrets(t, c.Token, outDir, r.logDir); n < 3 {
			t.Errorf("files scanned: got %d, want the rotated files and the logs", n)
		}
	})
}
