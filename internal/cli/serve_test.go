package cli

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/lwreplay/lwreplay/internal/testutil"
)

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// errCapped is what cappedTransport answers past its budget.
var errCapped = errors.New("request budget spent")

// cappedTransport lets at most max requests through; later ones fail.
type cappedTransport struct {
	rt  http.RoundTripper
	max int64
	n   atomic.Int64
}

func (c *cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.n.Add(1) > c.max {
		return nil, errCapped
	}
	return c.rt.RoundTrip(req)
}

// waitFor polls cond every 10 ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}

var servingURL = regexp.MustCompile(`serving on (https://127\.0\.0\.1:\d+)`)

// TestServeStormWarning serves a cassette under close-watch:after=3 over
// HTTP on loopback to a client-go informer. With WatchList, client-go
// restarts each stream cut in its initial events at once
// (kubernetes/kubernetes#140890). serve warns once and keeps serving.
func TestServeStormWarning(t *testing.T) {
	testutil.RequireWatchList(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	kc := t.TempDir() + "/kc"
	go func() {
		done <- run(ctx, []string{"serve", "--fault", "close-watch:after=3", "--write-kubeconfig", kc, realWatchList}, &stdout, &stderr)
	}()
	var url string
	if !waitFor(20*time.Second, func() bool {
		m := servingURL.FindStringSubmatch(stdout.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	}) {
		t.Fatalf("serve: got stdout %q, stderr %q, want a URL", stdout.String(), stderr.String())
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != url {
		t.Fatalf("kubeconfig: got server %q, want the printed %q", cfg.Host, url)
	}
	cfg.QPS = -1
	plain, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	capped := &cappedTransport{max: 5000}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { capped.rt = rt; return capped })
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	infCtx, stopInformer := context.WithCancel(ctx)
	inf := informers.NewSharedInformerFactory(cs, 0).Core().V1().ConfigMaps().Informer()
	if err := inf.SetWatchErrorHandlerWithContext(func(context.Context, *cache.Reflector, error) {}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(infCtx) })
	warned := waitFor(20*time.Second, func() bool { return strings.Contains(stderr.String(), "request storm") })
	// the storm goes on a while after the warning
	waitFor(5*time.Second, func() bool { return capped.n.Load() > 300 })
	stopInformer()
	wg.Wait()

	if !warned {
		t.Fatalf("stderr: got %q after %d requests, want a request storm warning", stderr.String(), capped.n.Load())
	}
	if n := strings.Count(stderr.String(), "request storm"); n != 1 {
		t.Errorf("warnings: got %d (%q), want 1 for the one storm", n, stderr.String())
	}
	for _, want := range []string{"WatchList requests for configmaps", "each ending before initial-events-end; no progress",
		"(more than 30 within 10s)", "kubernetes/kubernetes#140890", "still serving"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr: got %q, want it to contain %q", stderr.String(), want)
		}
	}
	resp, err := plain.Get(url + "/api/v1/configmaps")
	if err != nil {
		t.Fatalf("LIST after the storm: got error %v, want an answer", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("LIST after the storm: got %s, want 200 OK", resp.Status)
	}
	t.Logf("%d requests; stderr: %s", capped.n.Load(), stderr.String())
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exit code: got %d, want 0; stderr %q", code, stderr.String())
		}
	case <-time.After(hangBound):
		t.Fatalf("serve: still running %v after the end of its context, want it stopped", hangBound)
	}
}

// TestServeEndpoint checks what serve listens on and says: HTTPS with the
// CA in the kubeconfig by default, and plain HTTP under --insecure-http. A
// warning goes to stderr when more than this machine can reach the server.
func TestServeEndpoint(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantScheme string
		wantCA     bool
		wantWarn   bool
	}{
		{"loopback - https, no warning - pass", nil, "https", true, false},
		{"insecure http - plain http - pass", []string{"--insecure-http"}, "http", false, false},
		{"every interface - warning - pass", []string{"--addr", "0.0.0.0:0"}, "https", true, true},
	}
	anyURL := regexp.MustCompile(`serving on (\S+)`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stdout, stderr lockedBuffer
			kc := t.TempDir() + "/kc"
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, append(append([]string{"serve", "--write-kubeconfig", kc}, tt.args...), realWatchList), &stdout, &stderr)
			}()
			var url string
			if !waitFor(20*time.Second, func() bool {
				m := anyURL.FindStringSubmatch(stdout.String())
				if m != nil {
					url = m[1]
				}
				return m != nil
			}) {
				t.Fatalf("serve: got stdout %q, stderr %q, want a URL", stdout.String(), stderr.String())
			}
			if !strings.HasPrefix(url, tt.wantScheme+"://127.0.0.1:") {
				t.Errorf("URL: got %q, want %s://127.0.0.1:PORT", url, tt.wantScheme)
			}
			warned := strings.Contains(stderr.String(), "beyond loopback")
			if warned != tt.wantWarn {
				t.Errorf("stderr: got %q, want a warning beyond loopback: %v", stderr.String(), tt.wantWarn)
			}
			if tt.wantWarn && !strings.Contains(stderr.String(), "asks for no credentials") {
				t.Errorf("stderr: got %q, want it to say the server asks for no credentials", stderr.String())
			}
			raw, err := clientcmd.LoadFromFile(kc)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(raw.Clusters["lwreplay"].CertificateAuthorityData) > 0; got != tt.wantCA {
				t.Errorf("kubeconfig certificate-authority-data: got some %v, want some %v", got, tt.wantCA)
			}
			cfg, err := clientcmd.BuildConfigFromFlags("", kc)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{}); err != nil {
				t.Errorf("LIST with the written kubeconfig: got error %v, want configmaps", err)
			}
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("serve exit code: got %d, want 0; stderr %q", code, stderr.String())
			}
		})
	}
}
