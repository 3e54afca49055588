package cassharness

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// binEnv names the directory of the kube-apiserver 1.37.2 and etcd 3.6
// binaries lwreplay's e2e/build-cluster.sh builds (its default:
// ~/.cache/lwreplay/bin).
const binEnv = "LWREPLAY_CLUSTER_BIN"

// realCluster is a kube-apiserver on an etcd of its own, as lwreplay's
// e2e tests start one: a token, AlwaysAllow, no controllers. Its
// StorageObjectInUseProtection admission is off: no kube-controller-manager
// runs the pvc-protection controller that would lift the
// kubernetes.io/pvc-protection finalizer of a deleted claim no pod uses
// (none does here), so with it a deleted claim would never go.
type realCluster struct {
	url, token string
}

// startCluster starts etcd and kube-apiserver for the test, or skips it
// when the binaries are missing. Both stop when the test ends.
func startCluster(t *testing.T) *realCluster {
	t.Helper()
	bin := os.Getenv(binEnv)
	if bin == "" {
		home, _ := os.UserHomeDir()
		bin = filepath.Join(home, ".cache", "lwreplay", "bin")
	}
	apiserver, etcd := filepath.Join(bin, "kube-apiserver-v1.37.2"), filepath.Join(bin, "etcd-v3.6.16")
	for _, p := range []string{apiserver, etcd} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("SKIPPED: %v (run lwreplay's e2e/build-cluster.sh, or set %s)", err, binEnv)
		}
	}
	dir := t.TempDir()
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	c := &realCluster{token: hex.EncodeToString(raw)}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tokens := write("tokens.csv", fmt.Appendf(nil, "%s,admin,admin,\"system:masters\"\n", c.token))
	saKey := write("sa.key", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	saPub := write("sa.pub", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))
	ports := freePorts(t, 3)
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	run(t, dir, etcd, "--name=cass", "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL, "--initial-cluster=cass="+peerURL)
	waitReady(t, etcdURL+"/health", "")
	c.url = "https://127.0.0.1:" + strconv.Itoa(ports[2])
	run(t, dir, apiserver, "--etcd-servers="+etcdURL, "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--endpoint-reconciler-type=none", "--secure-port="+strconv.Itoa(ports[2]), "--cert-dir="+filepath.Join(dir, "certs"),
		"--token-auth-file="+tokens, "--authorization-mode=AlwaysAllow",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+saPub, "--service-account-signing-key-file="+saKey,
		"--disable-admission-plugins=ServiceAccount,StorageObjectInUseProtection", "--enable-priority-and-fairness=false",
		"--shutdown-delay-duration=0", "--service-cluster-ip-range=10.0.0.0/24")
	waitReady(t, c.url+"/readyz", c.token)
	return c
}

// restConfig is a client config for the cluster (its serving certificate
// is self-signed).
func (c *realCluster) restConfig() *rest.Config {
	return &rest.Config{Host: c.url, BearerToken: c.token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, QPS: -1, Burst: 1000}
}

// writeKubeconfig writes a kubeconfig for lwreplay record.
func (c *realCluster) writeKubeconfig(t *testing.T, path string) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["cass"] = &clientcmdapi.Cluster{Server: c.url, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: c.token}
	cfg.Contexts["cass"] = &clientcmdapi.Context{Cluster: "cass", AuthInfo: "admin"}
	cfg.CurrentContext = "cass"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}

// run starts a program logging to dir, and kills it when the test ends.
func run(t *testing.T, dir, prog string, args ...string) {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, filepath.Base(prog)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = log.Close()
	})
}

func freePorts(t *testing.T, n int) []int {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// waitReady polls url until it answers 200, for at most two minutes.
func waitReady(t *testing.T, url, token string) {
	t.Helper()
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: not ready within 2 minutes", url)
}
