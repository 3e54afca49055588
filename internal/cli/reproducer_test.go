package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/replayer/verbatim"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// reproducerFile is a reproducer lwreplay mutate wrote: the requests of
// its reference client (lwreplay's user agent).
const reproducerFile = "../../testdata/reproducers/tombstone_mutate.yaml"

// reproducerSays is what serve and inspect say the reproducer replays for.
const reproducerSays = "the requests of lwreplay/v0.0.0 (linux/amd64) kubernetes/$Format: 8 (discovery 2, configmaps.v1 LIST 2, " +
	"pods.v1 LIST 1, configmaps.v1 WATCH 2, pods.v1 WATCH 1), the first GET /api?timeout=32s"

func TestInspectReproducer(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in the output; "" for no reproducer line
	}{
		{name: "inspect - reproducer as text - pass", args: []string{"inspect", reproducerFile},
			want: "reproducer: replayed verbatim by serve, fuzz and mutate; it answers " + reproducerSays + "\n"},
		{name: "inspect - recording as text - pass", args: []string{"inspect", shipped}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(tt.args...)
			if code != 0 {
				t.Fatalf("exit code: got %d, want 0; stderr %s", code, stderr)
			}
			if tt.want != "" && !strings.Contains(out, tt.want) {
				t.Errorf("got output\n%s\nwant it to contain %q", out, tt.want)
			}
			if tt.want == "" && strings.Contains(out, "reproducer") {
				t.Errorf("got output\n%s\nwant no reproducer line", out)
			}
		})
	}
	t.Run("inspect - reproducer as JSON - pass", func(t *testing.T) {
		code, out, stderr := runCLI("inspect", "--json", reproducerFile)
		if code != 0 {
			t.Fatalf("exit code: got %d, want 0; stderr %s", code, stderr)
		}
		var got struct {
			Resources  []json.RawMessage      `json:"resources"`
			Reproducer *verbatim.Reproduction `json:"reproducer"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out)
		}
		if got.Reproducer == nil || got.Reproducer.String() != reproducerSays || len(got.Resources) != 2 {
			t.Errorf("got reproducer %+v and %d resources, want %q and 2", got.Reproducer, len(got.Resources), reproducerSays)
		}
	})
}

// serveOutput runs serve on cassette until it has written its kubeconfig,
// then asks it GET target and stops it. It returns serve's output, and
// the answer's code and body.
func serveOutput(t *testing.T, cassette, target string) (out string, code int, body string) {
	t.Helper()
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--write-kubeconfig", kc, cassette}, &stdout, &stderr) }()
	defer func() {
		cancel()
		if c := <-done; c != 0 {
			t.Errorf("serve: got exit %d, want 0; stderr %s", c, stderr.String())
		}
	}()
	if !waitFor(10*time.Second, func() bool {
		_, err := os.Stat(kc)
		return err == nil && strings.Count(stdout.String(), "\n") >= 3 // serving on, kubeconfig, the hint
	}) {
		t.Fatalf("serve started no server in 10s: %s %s", stdout.String(), stderr.String())
	}
	url := servingURL.FindStringSubmatch(stdout.String())[1]
	// over HTTPS, trusting the CA the written kubeconfig names
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatalf("kubeconfig: %v", err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatalf("HTTP client of the kubeconfig: %v", err)
	}
	resp, err := client.Get(url + target)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return stdout.String(), resp.StatusCode, string(b)
}

func TestServeHint(t *testing.T) {
	tests := []struct {
		name     string
		cassette string
		want     []string
		absent   string
		code     int // of kubectl get's first request
	}{
		{name: "serve - reproducer says which client it replays for - pass", cassette: reproducerFile,
			want: []string{"replays " + reproducerSays + "\n", "any other request (kubectl's among them) gets 404"}, absent: "try: kubectl", code: 404},
		{name: "serve - recording suggests kubectl - pass", cassette: shipped, want: []string{"try: kubectl --kubeconfig "}, code: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code, body := serveOutput(t, tt.cassette, "/api/v1/configmaps?limit=500")
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("got output\n%s\nwant it to contain %q", out, w)
				}
			}
			if tt.absent != "" && strings.Contains(out, tt.absent) {
				t.Errorf("got output\n%s\nwant no %q", out, tt.absent)
			}
			if code != tt.code {
				t.Errorf("GET /api/v1/configmaps?limit=500 (kubectl get's first LIST): got %d %s, want %d", code, body, tt.code)
			}
		})
	}
}
