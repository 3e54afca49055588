package replayer

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/cert"
)

// serveEndpoint serves a server over smallHistory on e until the test
// ends.
func serveEndpoint(t *testing.T, e *Endpoint) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Serve(ctx, New(smallHistory(t))) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: got error %v, want none", err)
		}
	})
}

// handshake reports whether a TLS client that trusts only caPEM accepts
// the certificate e serves for name.
func handshake(t *testing.T, e *Endpoint, caPEM []byte, name string) error {
	t.Helper()
	pool, err := cert.NewPoolFromBytes(caPEM)
	if err != nil {
		t.Fatalf("CA: got error %v, want a PEM certificate", err)
	}
	conn, err := tls.Dial("tcp", strings.TrimPrefix(e.URL, "https://"), &tls.Config{RootCAs: pool, ServerName: name})
	if err != nil {
		return err
	}
	return conn.Close()
}

func TestListen(t *testing.T) {
	t.Parallel()
	hostname, _ := os.Hostname()
	tests := []struct {
		name         string
		addr         string
		opts         []ServeOption
		wantScheme   string
		wantLoopback bool
		trusted      []string // names a client verifying the CA accepts
		refused      []string // names it refuses
	}{
		{"127.0.0.1 - https for loopback names - pass", "127.0.0.1:0", nil, "https://127.0.0.1:", true,
			[]string{"127.0.0.1", "localhost", "::1"}, []string{"replay.invalid", "10.0.0.1"}},
		{"localhost - https - pass", "localhost:0", nil, "https://127.0.0.1:", true,
			[]string{"localhost", "127.0.0.1"}, []string{"replay.invalid"}},
		{"every interface - https dialled on loopback, host name in the certificate - pass", "0.0.0.0:0", nil, "https://127.0.0.1:", false,
			[]string{"127.0.0.1", "localhost", hostname}, []string{"replay.invalid"}},
		{"insecure http - plain http - pass", "127.0.0.1:0", []ServeOption{WithInsecureHTTP()}, "http://127.0.0.1:", true, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := Listen(tt.addr, tt.opts...)
			if err != nil {
				t.Fatalf("Listen(%q): got error %v, want an endpoint", tt.addr, err)
			}
			serveEndpoint(t, e)
			if !strings.HasPrefix(e.URL, tt.wantScheme) {
				t.Errorf("URL: got %q, want %q…", e.URL, tt.wantScheme)
			}
			if got := e.Loopback(); got != tt.wantLoopback {
				t.Errorf("Loopback(): got %v, want %v", got, tt.wantLoopback)
			}
			if tt.wantScheme == "http://127.0.0.1:" && e.CAData != nil {
				t.Errorf("CAData: got %d bytes for plain HTTP, want none", len(e.CAData))
			}
			for _, name := range tt.trusted {
				if err := handshake(t, e, e.CAData, name); err != nil {
					t.Errorf("TLS handshake for %q trusting the endpoint's CA: got error %v, want none", name, err)
				}
			}
			for _, name := range tt.refused {
				if err := handshake(t, e, e.CAData, name); err == nil {
					t.Errorf("TLS handshake for %q: got none, want a certificate error", name)
				}
			}
			// A client-go client from RESTConfig verifies the CA and lists.
			cs, err := kubernetes.NewForConfig(e.RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			list, err := cs.CoreV1().ConfigMaps("").List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatalf("LIST over %s: got error %v, want configmaps", e.URL, err)
			}
			if len(list.Items) != 3 {
				t.Errorf("LIST over %s: got %d configmaps, want the 3 of the initial state", e.URL, len(list.Items))
			}
		})
	}
}

func TestListenFreshCA(t *testing.T) {
	t.Parallel()
	a, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveEndpoint(t, a)
	b, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveEndpoint(t, b)
	if string(a.CAData) == string(b.CAData) {
		t.Fatalf("two endpoints: got the same CA, want one per endpoint")
	}
	if err := handshake(t, b, a.CAData, "127.0.0.1"); err == nil {
		t.Errorf("TLS handshake with one endpoint trusting another's CA: got none, want a certificate error")
	}
}

func TestListenErrors(t *testing.T) {
	tests := []struct {
		name, addr, want string
	}{
		{"no port - fail", "127.0.0.1", "missing port"},
		{"bad port - fail", "127.0.0.1:99999", "invalid port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Listen(tt.addr)
			if err == nil {
				e.Close()
				t.Fatalf("Listen(%q): got an endpoint, want an error containing %q", tt.addr, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Listen(%q): got error %q, want it to contain %q", tt.addr, err, tt.want)
			}
		})
	}
}

func TestEndpointKubeconfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		opts      []ServeOption
		wantCA    bool
		wantToken bool
	}{
		{"https - CA data and a placeholder token - pass", nil, true, true},
		{"insecure http - no CA, no credentials - pass", []ServeOption{WithInsecureHTTP()}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := Listen("127.0.0.1:0", tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			serveEndpoint(t, e)
			path := filepath.Join(t.TempDir(), "kubeconfig")
			if err := e.WriteKubeconfig(path); err != nil {
				t.Fatalf("WriteKubeconfig: got error %v, want none", err)
			}
			cfg, err := clientcmd.LoadFromFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cl := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster]
			if cl.Server != e.URL {
				t.Errorf("server: got %q, want %q", cl.Server, e.URL)
			}
			if got := string(cl.CertificateAuthorityData); (got != "") != tt.wantCA || got != string(e.CAData) {
				t.Errorf("certificate-authority-data: got %d bytes, want the endpoint's CA (%d bytes)", len(got), len(e.CAData))
			}
			if cl.InsecureSkipTLSVerify {
				t.Errorf("insecure-skip-tls-verify: got true, want false")
			}
			if got := cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo].Token != ""; got != tt.wantToken {
				t.Errorf("token: got one %v, want one %v", got, tt.wantToken)
			}
			rc, err := clientcmd.BuildConfigFromFlags("", path)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := kubernetes.NewForConfig(rc)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CoreV1().ConfigMaps("ns1").List(context.Background(), metav1.ListOptions{}); err != nil {
				t.Errorf("LIST with the kubeconfig: got error %v, want configmaps", err)
			}
		})
	}
}

// TestIdleTimeout checks that a keep-alive connection with no request in
// flight is closed after the idle timeout. A watch lasting longer than it
// is not cut.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	const idle = 300 * time.Millisecond
	e, err := Listen("127.0.0.1:0", WithIdleTimeout(idle))
	if err != nil {
		t.Fatal(err)
	}
	serveEndpoint(t, e)
	pool, err := cert.NewPoolFromBytes(e.CAData)
	if err != nil {
		t.Fatal(err)
	}
	// HTTP/1.1 by hand, to see the connection itself.
	conn, err := tls.Dial("tcp", e.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("GET /version: got %s (close %v), want 200 on a kept-alive connection", resp.Status, resp.Close)
	}
	start := time.Now()
	// A hang guard: 100 times the idle timeout, far above the milliseconds
	// a loaded machine adds to it.
	conn.SetReadDeadline(start.Add(100 * idle))
	_, err = br.ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("idle keep-alive connection: still open after %v, want it closed after %v", 100*idle, idle)
	}
	if !errors.Is(err, io.EOF) {
		t.Fatalf("idle keep-alive connection: got %v, want EOF (closed by the server)", err)
	}
	if waited := time.Since(start); waited < idle/2 {
		t.Errorf("idle keep-alive connection: closed after %v, want about %v", waited, idle)
	}

	// A watch of 2s, 6 idle timeouts long, runs to its end.
	rc := e.RESTConfig()
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	timeout := int64(2)
	start = time.Now()
	w, err := cs.CoreV1().ConfigMaps("").Watch(context.Background(), metav1.ListOptions{ResourceVersion: "1009", TimeoutSeconds: &timeout})
	if err != nil {
		t.Fatal(err)
	}
	for range w.ResultChan() {
	}
	if lasted := time.Since(start); lasted < 1900*time.Millisecond {
		t.Errorf("watch with timeoutSeconds=2: ended after %v, want it to last its 2s despite the %v idle timeout", lasted, idle)
	}
}

func TestServeDefaults(t *testing.T) {
	o := serveDefaults()
	// kube-apiserver's (k8s.io/apiserver SecureServingInfo.Serve)
	if o.idleTimeout != 90*time.Second || o.readHeaderTimeout != 32*time.Second {
		t.Errorf("defaults: got idle %v, read header %v, want kube-apiserver's 90s and 32s", o.idleTimeout, o.readHeaderTimeout)
	}
	if o.insecureHTTP {
		t.Errorf("defaults: got plain HTTP, want HTTPS")
	}
}
