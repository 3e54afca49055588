package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/cluster"
)

// waitLimit bounds every wait for a condition. It is long enough for a
// loaded machine, and short enough that a broken recorder fails the test
// instead of hanging it. Conditions are polled, never timed.
const waitLimit = 90 * time.Second

// pollEvery is how often waitFor checks its condition.
const pollEvery = 100 * time.Millisecond

// waitFor polls cond until it holds, failing t with cond's last
// explanation if it still does not after waitLimit.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not the case after %v: %s", what, waitLimit, why)
		}
		time.Sleep(pollEvery)
	}
}

// recording is a `lwreplay record` subprocess.
type recording struct {
	cmd    *exec.Cmd
	out    string // the cassette path (-o)
	logDir string // holds stdout and stderr
	done   chan struct{}
	err    error // Wait's result, valid once done is closed
}

// kubeconfigFor writes a kubeconfig for c into a directory of its own (it
// holds the token: it is no recorder output).
func kubeconfigFor(t *testing.T, c *cluster.Cluster) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := c.WriteKubeconfig(p); err != nil {
		t.Fatalf("kubeconfig: got error %v, want none", err)
	}
	return p
}

// startRecording runs `lwreplay record --kubeconfig kubeconfig -o out
// args...`. The process is killed when t ends if it is still running.
func startRecording(t *testing.T, kubeconfig, out string, args ...string) *recording {
	t.Helper()
	bin := lwreplayBinary(t)
	r := &recording{out: out, logDir: t.TempDir(), done: make(chan struct{})}
	argv := append([]string{"record", "--kubeconfig", kubeconfig, "-o", out}, args...)
	r.cmd = exec.Command(bin, argv...)
	r.cmd.Env = recordEnv()
	stdout, err := os.Create(filepath.Join(r.logDir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.Create(filepath.Join(r.logDir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stdout, r.cmd.Stderr = stdout, stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start lwreplay record: got error %v, want none", err)
	}
	go func() {
		r.err = r.cmd.Wait()
		stdout.Close()
		stderr.Close()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// recordEnv is the test's environment without what would change how
// client-go reaches or asks the cluster.
func recordEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KUBE_FEATURE_") || strings.HasPrefix(kv, "KUBECONFIG=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// exited reports whether the process has ended.
func (r *recording) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// output returns what the process wrote to stdout and stderr so far.
func (r *recording) output() string {
	var b strings.Builder
	for _, name := range []string{"stdout", "stderr"} {
		data, _ := os.ReadFile(filepath.Join(r.logDir, name))
		fmt.Fprintf(&b, "--- %s ---\n%s", name, data)
	}
	return b.String()
}

// interrupt sends SIGINT and waits for the process to end; it fails t
// unless the process exits 0.
func (r *recording) interrupt(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("SIGINT: got error %v, want none", err)
	}
	r.wait(t)
	if r.err != nil {
		t.Fatalf("lwreplay record after SIGINT: got %v, want exit status 0\n%s", r.err, r.output())
	}
}

// kill sends SIGKILL and waits for the process to end.
func (r *recording) kill(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("SIGKILL: got error %v, want none", err)
	}
	r.wait(t)
}

func (r *recording) wait(t *testing.T) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(waitLimit):
		r.cmd.Process.Kill()
		<-r.done
		t.Fatalf("lwreplay record: still running %v after the signal\n%s", waitLimit, r.output())
	}
}

// loadHistory loads cassette files and builds their history.
func loadHistory(paths ...string) ([]*cassette.File, *history.History, error) {
	files, err := cassette.LoadAll(paths...)
	if err != nil {
		return nil, nil, err
	}
	h, err := history.Build(files...)
	if err != nil {
		return files, nil, err
	}
	return files, h, nil
}

// logOf returns the log of the core v1 resource res in h.
func logOf(h *history.History, res string) (*history.Log, bool) {
	return h.Log(history.Resource{Version: "v1", Resource: res})
}

// started is a waitFor condition: the cassette at path loads and has a
// started log for each resource.
func started(path string, resources ...string) func() (bool, string) {
	return func() (bool, string) {
		if _, err := os.Stat(path); err != nil {
			return false, err.Error()
		}
		_, h, err := loadHistory(path)
		if err != nil {
			return false, err.Error()
		}
		for _, r := range resources {
			if _, ok := logOf(h, r); !ok {
				return false, fmt.Sprintf("no log for %s yet", r)
			}
		}
		return true, ""
	}
}

// caughtUp is a waitFor condition: the cassette at path holds, for each
// resource, a final state with the keys and resourceVersions of want.
func caughtUp(path string, want map[string]map[string]map[string]any) func() (bool, string) {
	return func() (bool, string) {
		_, h, err := loadHistory(path)
		if err != nil {
			return false, err.Error()
		}
		for res, w := range want {
			l, ok := logOf(h, res)
			if !ok {
				return false, "no log for " + res
			}
			got, err := historyState(l)
			if err != nil {
				return false, err.Error()
			}
			if g, ws := stateSummary(got), stateSummary(w); strings.Join(g, " ") != strings.Join(ws, " ") {
				return false, fmt.Sprintf("%s: got %d objects %q, want %d %q", res, len(g), g, len(ws), ws)
			}
		}
		return true, ""
	}
}
