package e2e

import (
	"context"
	"flag"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/e2e/writediff"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/cluster"
	"github.com/lwreplay/lwreplay/replayer"
	"k8s.io/client-go/rest"
)

// update makes the tests that keep a golden file of the real
// kube-apiserver's rewrite it: TestWritesRealAPIServer its transcript,
// TestRecordController the children controller's recording.
var update = flag.Bool("update", false, "rewrite the golden files from the real kube-apiserver ("+writesGolden+", "+controllerFixture+")")

// writesGolden is the real kube-apiserver's transcript of the write
// sequences.
var writesGolden = filepath.Join("testdata", "writes", "transcript.json")

// writesTimeout bounds one run of the write sequences.
const writesTimeout = 5 * time.Minute

// logKubectl logs which kubectl the kubectl steps run.
func logKubectl(t *testing.T) {
	t.Helper()
	p, err := writediff.FindKubectl()
	if err != nil {
		t.Fatalf("kubectl: got error %v, want a kubectl on PATH", err)
	}
	v, err := writediff.KubectlVersion(context.Background(), p)
	if err != nil {
		t.Fatalf("kubectl version: got error %v, want a version", err)
	}
	t.Logf("kubectl: %s (%s)", p, v)
}

// runWrites runs seqs against cfg.
func runWrites(t *testing.T, cfg *rest.Config, kubeconfig string, seqs []writediff.Sequence) writediff.Transcript {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), writesTimeout)
	defer cancel()
	tr, err := writediff.Run(ctx, cfg, kubeconfig, seqs)
	if err != nil {
		t.Fatalf("writediff.Run: got error %v, want a transcript", err)
	}
	return tr
}

// TestWritesRealAPIServer runs the write sequences twice against a real
// kube-apiserver. It wants the two transcripts equal (nothing
// run-specific left after normalization). It wants them equal to the
// golden one, which -update rewrites.
func TestWritesRealAPIServer(t *testing.T) {
	c := cluster.StartT(t)
	logKubectl(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := c.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatalf("WriteKubeconfig: got error %v, want none", err)
	}
	first := runWrites(t, c.RestConfig(), kubeconfig, writediff.Sequences())
	second := runWrites(t, c.RestConfig(), kubeconfig, writediff.Sequences())
	for _, d := range writediff.Diff(first, second) {
		t.Errorf("second run beside the first: %s", d)
	}
	if *update {
		if err := writediff.WriteTranscript(writesGolden, first); err != nil {
			t.Fatalf("WriteTranscript: got error %v, want none", err)
		}
		return
	}
	want, err := writediff.ReadTranscript(writesGolden)
	if err != nil {
		t.Fatalf("ReadTranscript: got error %v, want the golden transcript (run with -update)", err)
	}
	for _, d := range writediff.Diff(want, first) {
		t.Errorf("real kube-apiserver beside the golden transcript: %s", d)
	}
}

// TestWritesReplay runs the write sequences against the replay of an empty
// history. It wants the golden transcript of the real kube-apiserver, but
// for the known differences (knownWriteDifferences). Each of those must
// still show.
func TestWritesReplay(t *testing.T) {
	want, err := writediff.ReadTranscript(writesGolden)
	if err != nil {
		t.Fatalf("ReadTranscript: got error %v, want the golden transcript", err)
	}
	ts := httptest.NewServer(replayer.New(&history.History{}))
	defer ts.Close()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := replayer.WriteKubeconfig(kubeconfig, ts.URL); err != nil {
		t.Fatalf("WriteKubeconfig: got error %v, want none", err)
	}
	cfg := &rest.Config{Host: ts.URL}
	seqs := writediff.Sequences()
	logKubectl(t)
	got := runWrites(t, cfg, kubeconfig, seqs)
	seen := make([]bool, len(knownWriteDifferences))
	for _, d := range writediff.Diff(want, got) {
		known := false
		for i, k := range knownWriteDifferences {
			if strings.HasPrefix(d, k.prefix) {
				known, seen[i] = true, true
			}
		}
		if !known {
			t.Errorf("replay beside the real kube-apiserver: %s", d)
		}
	}
	for i, k := range knownWriteDifferences {
		if !seen[i] {
			t.Errorf("known difference %q (%s): got none, want it (fixed? take it off knownWriteDifferences and docs/replayer.md)", k.prefix, k.why)
		}
	}
}

// knownWriteDifferences are the differences between the replay's answers
// and the real kube-apiserver's that docs/replayer.md ("Writes") lists,
// each with its reason. A diff line starting with prefix is expected.
var knownWriteDifferences = []struct{ prefix, why string }{
	{"patch / json patch malformed: message:", "kube-apiserver's message names its own Go type ([]handlers.jsonPatchOp)"},
	{"patch-deployment / create protobuf: shown.spec.template.spec.containers:", "no defaulting of built-in kinds: its defaulters live in k8s.io/kubernetes"},
	{"patch-deployment / strategic patch containers by name protobuf: shown.spec.template.spec.containers:", "no defaulting of built-in kinds"},
	{"patch-deployment / merge patch containers (list replaced): shown.spec.template.spec.containers:", "no defaulting of built-in kinds"},
	{"patch-deployment / strategic patch deleting container c: shown.spec.template.spec.containers:", "no defaulting of built-in kinds"},
}
