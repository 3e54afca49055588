package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

// clientNodeCassette is the recording the JavaScript informer replays.
const clientNodeCassette = shipDir + "/real-configmaps-pods-watchlist.yaml"

// clientNodeDir installs @kubernetes/client-node into the cache outside the
// repository (e2e/install-client-node.sh) and returns the directory holding
// its node_modules. It skips t loudly when node or npm is missing or the
// install fails.
func clientNodeDir(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("SKIPPED: the client-node informer test needs %s on PATH: %v", tool, err)
		}
	}
	var stderr bytes.Buffer
	cmd := exec.Command("./install-client-node.sh")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("SKIPPED: e2e/install-client-node.sh could not install @kubernetes/client-node: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// lockedLines collects a process's output lines, safe for concurrent use.
type lockedLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *lockedLines) read(r io.Reader) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		l.mu.Lock()
		l.lines = append(l.lines, s.Text())
		l.mu.Unlock()
	}
}

func (l *lockedLines) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// startProcess starts cmd with its stdout and stderr collected by line; it
// is killed when t ends if still running.
func startProcess(t *testing.T, cmd *exec.Cmd) (stdout, stderr *lockedLines, done <-chan error) {
	t.Helper()
	stdout, stderr = &lockedLines{}, &lockedLines{}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: got error %v, want none", cmd.Path, err)
	}
	var readers sync.WaitGroup
	readers.Go(func() { stdout.read(outPipe) })
	readers.Go(func() { stderr.read(errPipe) })
	ch := make(chan error, 1)
	go func() {
		readers.Wait()
		ch <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})
	return stdout, stderr, ch
}

var servingHTTPS = regexp.MustCompile(`^serving on https://127\.0\.0\.1:\d+ `)

// TestClientNodeInformer runs the official JavaScript client's informer
// (@kubernetes/client-node, LIST then WATCH) on configmaps against `lwreplay
// serve`. It uses the kubeconfig serve wrote as is (HTTPS, the CA verified).
// It checks that its cache converges to the recording's final configmaps, by
// name and resourceVersion, with no error on the way.
func TestClientNodeInformer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node and may install @kubernetes/client-node from npm")
	}
	nodeDir := clientNodeDir(t)
	_, h, err := loadHistory(clientNodeCassette)
	if err != nil {
		t.Fatal(err)
	}
	l, ok := logOf(h, "configmaps")
	if !ok {
		t.Fatalf("%s: got no configmaps log, want one", clientNodeCassette)
	}
	initialLine, wantLine := stateLine(t, l.StateAt(0)), stateLine(t, l.StateAt(l.End()))

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	serve := exec.Command(lwreplayBinary(t), "serve", "--write-kubeconfig", kubeconfig, clientNodeCassette)
	serveOut, serveErr, serveDone := startProcess(t, serve)
	if !waitLines(serveOut, 20*time.Second, func(line string) bool { return servingHTTPS.MatchString(line) }) {
		t.Fatalf("lwreplay serve: got stdout %q, stderr %q, want a line \"serving on https://127.0.0.1:PORT\"", serveOut.snapshot(), serveErr.snapshot())
	}

	node := exec.Command("node", "clientnode/informer.mjs", nodeDir)
	node.Env = append(withoutEnv("KUBECONFIG", "NODE_TLS_REJECT_UNAUTHORIZED", "NODE_EXTRA_CA_CERTS"), "KUBECONFIG="+kubeconfig)
	nodeOut, nodeErr, nodeDone := startProcess(t, node)
	converged := waitLines(nodeOut, 30*time.Second, func(line string) bool { return line == wantLine })
	node.Process.Kill()
	<-nodeDone
	if !converged {
		states := nodeOut.snapshot()
		last := "none"
		if len(states) > 0 {
			last = states[len(states)-1]
		}
		t.Fatalf("client-node informer: got last cache %s (stderr %q), want the recording's final configmaps %s", last, nodeErr.snapshot(), wantLine)
	}
	for _, line := range nodeErr.snapshot() {
		if strings.HasPrefix(line, "ERROR") {
			t.Errorf("client-node informer: got %q, want no error", line)
		}
	}
	// It listed the recorded start, then watched its way to the end.
	states := nodeOut.snapshot()
	listed, final := slices.Index(states, initialLine), slices.Index(states, wantLine)
	if listed < 0 || listed > final {
		t.Errorf("client-node informer: got caches %q, want the recording's initial configmaps %s before the final ones", states, initialLine)
	}
	t.Logf("client-node informer: listed %d configmaps, converged to %d after %d changes of its cache", len(l.StateAt(0)), len(l.StateAt(l.End())), final+1)

	if err := serve.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatal(err)
	}
	select {
	case err := <-serveDone:
		if err != nil {
			t.Errorf("lwreplay serve after SIGINT: got %v, want exit 0; stderr %q", err, serveErr.snapshot())
		}
	case <-time.After(20 * time.Second):
		t.Errorf("lwreplay serve: still running 20s after SIGINT, want it stopped")
	}
}

// waitLines polls l until some line satisfies match or d passes.
func waitLines(l *lockedLines, d time.Duration, match func(string) bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		for _, line := range l.snapshot() {
			if match(line) {
				return true
			}
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// withoutEnv is the test's environment without the named variables.
func withoutEnv(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			env = append(env, kv)
		}
	}
	return env
}

// stateLine is the line informer.mjs prints for a cache holding objs.
func stateLine(t *testing.T, objs []*history.Object) string {
	t.Helper()
	keys := []string{}
	for _, o := range objs {
		keys = append(keys, fmt.Sprintf("%s/%s@%s", o.Namespace, o.Name, o.ResourceVersion))
	}
	sort.Strings(keys)
	b, err := json.Marshal(keys)
	if err != nil {
		t.Fatal(err)
	}
	return "STATE " + string(b)
}
