package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/synth"
)

// kubectlVersions are the kubectl builds every machine here has, beside the
// kubectl on PATH.
var kubectlVersions = []string{"1.27", "1.33"}

// hangBound is how long a test waits, in real time, for lwreplay serve to
// start or stop before it calls it hung. It is a minute, far above the
// second or so either takes on a loaded 2-core machine.
const hangBound = time.Minute

func kubectlPath(t *testing.T, version string) string {
	t.Helper()
	k, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skipf("SKIPPED: no kubectl on PATH: %v", err)
	}
	if real, err := filepath.EvalSymlinks(k); err == nil {
		k = real
	}
	p := filepath.Join(filepath.Dir(k), "kubectl."+version)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("SKIPPED: kubectl %s not found beside %s: %v", version, k, err)
	}
	return p
}

// kubectlCassette writes a history of configmaps in two namespaces: two
// updated, one deleted, one created after the initial list.
func kubectlCassette(t *testing.T) string {
	t.Helper()
	b := synth.NewBuilder()
	cms := map[string]*corev1.ConfigMap{}
	for _, k := range []string{"team-a/alpha", "team-a/beta", "team-b/gamma", "team-b/doomed"} {
		ns, name, _ := strings.Cut(k, "/")
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"v": "1"}}
		cms[k] = cm
		b.Add(cm)
	}
	b.Snapshot()
	cms["team-a/alpha"].Data["v"] = "2"
	b.Update(cms["team-a/alpha"])
	b.Delete(cms["team-b/doomed"])
	b.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "late"}})
	cms["team-a/beta"].Data["v"] = "3"
	b.Update(cms["team-a/beta"])
	f, err := b.Cassette(synth.CassetteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubectl.yaml")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// startServe runs `lwreplay serve` in-process and returns its kubeconfig.
func startServe(t *testing.T, cassettes ...string) string {
	t.Helper()
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--write-kubeconfig", kc}, cassettes...), &out, &errOut)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("lwreplay serve: got exit %d, want 0; stderr: %s", code, errOut.String())
			}
		case <-time.After(hangBound):
			t.Errorf("lwreplay serve did not stop within %v of its context's end", hangBound)
		}
	})
	for deadline := time.Now().Add(hangBound); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(kc); err == nil {
			return kc
		}
		select {
		case code := <-done:
			t.Fatalf("lwreplay serve exited %d: %s", code, errOut.String())
		default:
		}
	}
	t.Fatalf("lwreplay serve wrote no kubeconfig in 10s")
	return ""
}

func TestKubectlAgainstServe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kubectl")
	}
	cas := kubectlCassette(t)
	for _, v := range kubectlVersions {
		t.Run(fmt.Sprintf("kubectl %s - get -w and wait --for=delete - pass", v), func(t *testing.T) {
			k := kubectlPath(t, v)
			kc := startServe(t, cas)
			cmd := exec.Command(k, "--kubeconfig", kc, "get", "configmaps", "-A", "-w", "--request-timeout=5s", "-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name,RV:.metadata.resourceVersion", "--no-headers")
			out, err := cmd.CombinedOutput()
			text := string(out)
			if err != nil && !strings.Contains(text, "alpha") {
				t.Fatalf("kubectl get -w: %v\n%s", err, text)
			}
			// the initial objects, then every event: alpha's and beta's
			// updates, doomed's deletion (kubectl prints its last state),
			// late's creation.
			for _, want := range []string{"team-a alpha 1001", "team-a beta 1002", "team-b gamma 1003", "team-b doomed 1004",
				"team-a alpha 1005", "team-b doomed 1006", "team-b late 1007", "team-a beta 1008"} {
				if !containsFields(text, want) {
					t.Errorf("kubectl get -w output: missing line %q; got:\n%s", want, text)
				}
			}
			// A fresh server: doomed still exists at its head, so wait
			// must see the DELETED event on its watch.
			fresh := startServe(t, cas)
			wait := exec.Command(k, "--kubeconfig", fresh, "wait", "--for=delete", "configmap/doomed", "-n", "team-b", "--timeout="+hangBound.String())
			if out, err := wait.CombinedOutput(); err != nil {
				t.Errorf("kubectl wait --for=delete: got %v, want exit 0\n%s", err, out)
			}
			// and one for an object never deleted must time out.
			never := exec.Command(k, "--kubeconfig", fresh, "wait", "--for=delete", "configmap/gamma", "-n", "team-b", "--timeout=2s")
			if out, err := never.CombinedOutput(); err == nil {
				t.Errorf("kubectl wait --for=delete of a configmap the history keeps: got exit 0, want a timeout\n%s", out)
			}
		})
	}
}

// containsFields reports whether some line of text has the fields of want.
func containsFields(text, want string) bool {
	w := strings.Join(strings.Fields(want), " ")
	for _, line := range strings.Split(text, "\n") {
		if strings.Join(strings.Fields(line), " ") == w {
			return true
		}
	}
	return false
}

// TestKubectlServerPrinting runs kubectl's default printing against serve.
// kubectl asks for a Table, and prints the server's columns (the default
// convertor's NAME and CREATED AT) rather than its own NAME and AGE. It
// does so for its LIST and for every watch event. And discovery lists only
// what the replay answers; of a writable one, also the built-in resources
// it serves from empty.
func TestKubectlServerPrinting(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kubectl")
	}
	cas := kubectlCassette(t)
	for _, v := range kubectlVersions {
		t.Run(fmt.Sprintf("kubectl %s - get and get -w print the server's Table - pass", v), func(t *testing.T) {
			k := kubectlPath(t, v)
			kc := startServe(t, cas)
			out, err := exec.Command(k, "--kubeconfig", kc, "get", "configmaps", "-A", "--request-timeout=5s").CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl get: %v\n%s", err, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if got := strings.Join(strings.Fields(lines[0]), " "); got != "NAMESPACE NAME CREATED AT" {
				t.Errorf("kubectl get: got header %q, want %q (the server's Table)", got, "NAMESPACE NAME CREATED AT")
			}
			for _, want := range []string{"team-a alpha 2026-01-01T00:00:01Z", "team-a beta 2026-01-01T00:00:02Z", "team-b gamma 2026-01-01T00:00:03Z", "team-b doomed 2026-01-01T00:00:04Z"} {
				if !containsFields(string(out), want) {
					t.Errorf("kubectl get: missing line %q; got:\n%s", want, out)
				}
			}
			w := exec.Command(k, "--kubeconfig", startServe(t, cas), "get", "configmaps", "-A", "-w", "--request-timeout=5s")
			out, err = w.CombinedOutput()
			if err != nil && !strings.Contains(string(out), "alpha") {
				t.Fatalf("kubectl get -w: %v\n%s", err, out)
			}
			if n := strings.Count(string(out), "CREATED AT"); n != 1 {
				t.Errorf("kubectl get -w: got %d headers with CREATED AT, want 1 (watch events carry no column definitions); got:\n%s", n, out)
			}
			// the list, then a line per watch event: alpha's update,
			// doomed's deletion, late's creation, beta's update
			var rows []string
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n")[1:] {
				rows = append(rows, strings.Join(strings.Fields(line)[:2], "/"))
			}
			want := "team-a/alpha team-a/beta team-b/doomed team-b/gamma team-a/alpha team-b/doomed team-b/late team-a/beta"
			if got := strings.Join(rows, " "); got != want {
				t.Errorf("kubectl get -w: got rows %q, want %q; output:\n%s", got, want, out)
			}
		})
		t.Run(fmt.Sprintf("kubectl %s - api-resources of a read-only replay lists what it answers - pass", v), func(t *testing.T) {
			k := kubectlPath(t, v)
			kc := startServe(t, "--read-only", filepath.Join("..", "..", "cassettes", "real-configmaps-pods-watchlist.yaml"))
			out, err := exec.Command(k, "--kubeconfig", kc, "api-resources", "--no-headers", "--request-timeout=5s").CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl api-resources: %v\n%s", err, out)
			}
			var names []string
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				names = append(names, strings.Fields(line)[0])
			}
			if got := strings.Join(names, " "); got != "configmaps pods" {
				t.Errorf("kubectl api-resources: got %q, want %q (the recorded discovery lists ~70)\n%s", got, "configmaps pods", out)
			}
			out, err = exec.Command(k, "--kubeconfig", kc, "get", "deployments", "--request-timeout=5s").CombinedOutput()
			if want := `the server doesn't have a resource type "deployments"`; err == nil || !strings.Contains(string(out), want) {
				t.Errorf("kubectl get deployments: got %v\n%s\nwant a failure saying %s", err, out, want)
			}
		})
		t.Run(fmt.Sprintf("kubectl %s - api-resources of a writable replay lists the built-in resources too - pass", v), func(t *testing.T) {
			k := kubectlPath(t, v)
			kc := startServe(t, filepath.Join("..", "..", "cassettes", "real-configmaps-pods-watchlist.yaml"))
			out, err := exec.Command(k, "--kubeconfig", kc, "api-resources", "--no-headers", "--request-timeout=5s").CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl api-resources: %v\n%s", err, out)
			}
			names := map[string]bool{}
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				names[strings.Fields(line)[0]] = true
			}
			for _, want := range []string{"configmaps", "pods", "secrets", "deployments", "leases"} {
				if !names[want] {
					t.Errorf("kubectl api-resources: got no %s, want it listed (served from empty)\n%s", want, out)
				}
			}
			if names["tokenreviews"] || names["apiservices"] {
				t.Errorf("kubectl api-resources: got tokenreviews or apiservices, want neither (not served)\n%s", out)
			}
			out, err = exec.Command(k, "--kubeconfig", kc, "get", "deployments", "--request-timeout=5s").CombinedOutput()
			if want := "No resources found"; err != nil || !strings.Contains(string(out), want) {
				t.Errorf("kubectl get deployments: got %v\n%s\nwant success saying %s", err, out, want)
			}
		})
	}
}
