// Package cluster starts a real kube-apiserver backed by a real etcd on
// loopback, for tests and benchmarks that compare lwreplay with the real
// thing. The binaries come from e2e/build-cluster.sh (or the directory in
// LWREPLAY_CLUSTER_BIN); everything else lives in a temporary directory
// that Stop removes.
package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

var (
	// ErrBuild means the binaries could not be built or the build script
	// could not be found: the cluster cannot run on this machine.
	ErrBuild = errors.New("cluster: cannot build kube-apiserver and etcd")
	// ErrBinaries means the binary directory lacks a program.
	ErrBinaries = errors.New("cluster: binary missing")
	// ErrStart means a server did not start or did not become ready.
	ErrStart = errors.New("cluster: cannot start")
	// ErrStop means a server could not be stopped or its files removed.
	ErrStop = errors.New("cluster: cannot stop")
	// ErrKubeconfig means a kubeconfig could not be written.
	ErrKubeconfig = errors.New("cluster: cannot write kubeconfig")
)

// DefaultStartTimeout bounds the wait for etcd and kube-apiserver to be
// ready (the build, if needed, is bounded by Start's context only).
const DefaultStartTimeout = 2 * time.Minute

// apiserverGrace is how long kube-apiserver gets after SIGTERM before
// SIGKILL: it may otherwise linger for more than 15 s.
const apiserverGrace = time.Second

// etcdGrace is how long etcd gets after SIGTERM before SIGKILL.
const etcdGrace = 5 * time.Second

// Option configures Start.
type Option func(*options)

type options struct {
	compaction   *time.Duration
	extraFlags   []string
	startTimeout time.Duration
}

// WithCompactionInterval sets kube-apiserver's --etcd-compaction-interval
// (0 turns its compaction off; the default is kube-apiserver's, 5 minutes).
func WithCompactionInterval(d time.Duration) Option {
	return func(o *options) { o.compaction = &d }
}

// WithExtraFlags appends flags to kube-apiserver's command line; a later
// flag overrides an earlier one of the same name.
func WithExtraFlags(flags ...string) Option {
	return func(o *options) { o.extraFlags = append(o.extraFlags, flags...) }
}

// WithStartTimeout bounds the wait for both servers to be ready (default
// DefaultStartTimeout).
func WithStartTimeout(d time.Duration) Option {
	return func(o *options) { o.startTimeout = d }
}

// Cluster is a running kube-apiserver and its etcd.
type Cluster struct {
	// URL is kube-apiserver's address, https://127.0.0.1:<port>.
	URL string
	// Token is a bearer token for User, a member of system:masters.
	Token string
	// EtcdURL is etcd's client address, http://127.0.0.1:<port>.
	EtcdURL string

	dir       string
	etcd      *process
	apiserver *process
	// apiserverCmd is how kube-apiserver was started: its binary, then
	// its arguments (RestartAPIServer starts it again so)
	apiserverCmd []string
	// controllerManagerBin is kube-controller-manager's binary ("" if
	// none was found); controllerManager runs once started.
	controllerManagerBin string
	controllerManager    *process
	stopOnce             sync.Once
	stopErr              error
}

// Start builds (if needed) and starts etcd and kube-apiserver on free
// loopback ports. It returns once kube-apiserver's /readyz answers ok.
// ctx bounds the start only; the servers run until Stop.
func Start(ctx context.Context, opts ...Option) (*Cluster, error) {
	o := options{startTimeout: DefaultStartTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	bins, err := findBinaries(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "lwreplay-cluster-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	c := &Cluster{dir: dir, controllerManagerBin: bins.controllerManager}
	if err := c.start(ctx, bins, o); err != nil {
		if stopErr := c.Stop(); stopErr != nil {
			err = fmt.Errorf("%w (and %v)", err, stopErr)
		}
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context, bins binaries, o options) error {
	ctx, cancel := context.WithTimeout(ctx, o.startTimeout)
	defer cancel()
	creds, err := writeCredentials(c.dir)
	if err != nil {
		return err
	}
	c.Token = creds.token
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	client, peer, secure := ports[0], ports[1], ports[2]
	c.EtcdURL = "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	c.etcd, err = startProcess("etcd", bins.etcd, filepath.Join(c.dir, "etcd.log"),
		"--name=lwreplay",
		"--data-dir="+filepath.Join(c.dir, "etcd"),
		"--listen-client-urls="+c.EtcdURL,
		"--advertise-client-urls="+c.EtcdURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=lwreplay="+peerURL,
	)
	if err != nil {
		return err
	}
	if err := c.waitReady(ctx, c.EtcdURL+"/health", "", c.etcd); err != nil {
		return err
	}

	c.URL = "https://127.0.0.1:" + strconv.Itoa(secure)
	args := []string{
		"--etcd-servers=" + c.EtcdURL,
		"--bind-address=127.0.0.1",
		// A loopback advertise address is refused unless nothing
		// reconciles the kubernetes service's endpoints from it.
		"--advertise-address=127.0.0.1",
		"--endpoint-reconciler-type=none",
		"--secure-port=" + strconv.Itoa(secure),
		"--cert-dir=" + creds.certDir,
		"--token-auth-file=" + creds.tokenFile,
		"--authorization-mode=AlwaysAllow",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + creds.saPubFile,
		"--service-account-signing-key-file=" + creds.saKeyFile,
		"--disable-admission-plugins=ServiceAccount",
		"--enable-priority-and-fairness=false",
		"--shutdown-delay-duration=0",
		"--service-cluster-ip-range=10.0.0.0/24",
	}
	if o.compaction != nil {
		args = append(args, "--etcd-compaction-interval="+o.compaction.String())
	}
	args = append(args, o.extraFlags...)
	c.apiserverCmd = append([]string{bins.apiserver}, args...)
	return c.startAPIServer(ctx)
}

// startAPIServer starts kube-apiserver as c.apiserverCmd says and waits
// until its /readyz answers ok.
func (c *Cluster) startAPIServer(ctx context.Context) error {
	p, err := startProcess("kube-apiserver", c.apiserverCmd[0], filepath.Join(c.dir, "kube-apiserver.log"), c.apiserverCmd[1:]...)
	if err != nil {
		return err
	}
	c.apiserver = p
	return c.waitReady(ctx, c.URL+"/readyz", c.Token, c.apiserver)
}

// RestartAPIServer stops kube-apiserver (SIGTERM, then SIGKILL after a
// second), and calls down while it is stopped. It starts it again on the
// same port, with the same flags and the same etcd. It returns once it is
// ready, within the start timeout DefaultStartTimeout. That is an
// apiserver restart, whose watch caches start anew from etcd. ctx bounds
// the restart.
func (c *Cluster) RestartAPIServer(ctx context.Context, down func()) error {
	if c.apiserver == nil || len(c.apiserverCmd) == 0 {
		return fmt.Errorf("%w: kube-apiserver was never started", ErrStart)
	}
	if err := c.apiserver.stop(apiserverGrace); err != nil {
		return err
	}
	if down != nil {
		down()
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultStartTimeout)
	defer cancel()
	return c.startAPIServer(ctx)
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("%w: free port: %v", ErrStart, err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// waitReady polls url until it answers 200, p ends, or ctx is done. Its
// error quotes the tails of the logs of the processes started so far.
func (c *Cluster) waitReady(ctx context.Context, url, token string, p *process) error {
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrStart, err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		if err == nil {
			body := make([]byte, 512)
			n, _ := resp.Body.Read(body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, strings.TrimSpace(string(body[:n])))
		} else {
			last = err.Error()
		}
		select {
		case <-p.done:
			return fmt.Errorf("%w: %s exited (%v)\n%s", ErrStart, p.name, p.err, c.logTails())
		case <-ctx.Done():
			return fmt.Errorf("%w: %s not ready at %s: %v (last answer: %s)\n%s",
				ErrStart, p.name, url, context.Cause(ctx), last, c.logTails())
		case <-tick.C:
		}
	}
}

// logTails returns the tails of the logs of the processes started so far.
func (c *Cluster) logTails() string {
	var parts []string
	for _, p := range []*process{c.etcd, c.apiserver, c.controllerManager} {
		if p != nil {
			parts = append(parts, p.logTail())
		}
	}
	return strings.Join(parts, "\n")
}

// RestConfig returns a client config for User over TLS without verifying
// the self-signed serving certificate, with no client-side rate limit.
func (c *Cluster) RestConfig() *rest.Config {
	return &rest.Config{
		Host:            c.URL,
		BearerToken:     c.Token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             -1,
		Burst:           10000,
	}
}

// WriteKubeconfig writes a kubeconfig for the Cluster to path, for kubectl.
func (c *Cluster) WriteKubeconfig(path string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["lwreplay"] = &clientcmdapi.Cluster{Server: c.URL, InsecureSkipTLSVerify: true}
	cfg.AuthInfos[User] = &clientcmdapi.AuthInfo{Token: c.Token}
	cfg.Contexts["lwreplay"] = &clientcmdapi.Context{Cluster: "lwreplay", AuthInfo: User}
	cfg.CurrentContext = "lwreplay"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrKubeconfig, path, err)
	}
	return nil
}

// Stop kills kube-controller-manager if started, then kube-apiserver
// (SIGTERM, then SIGKILL after a second), then etcd. It waits for each to
// be reaped, and removes the temporary directory. Later calls return the
// first call's result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		var errs []error
		if c.controllerManager != nil {
			errs = append(errs, c.controllerManager.stop(apiserverGrace))
		}
		if c.apiserver != nil {
			errs = append(errs, c.apiserver.stop(apiserverGrace))
		}
		if c.etcd != nil {
			errs = append(errs, c.etcd.stop(etcdGrace))
		}
		if err := os.RemoveAll(c.dir); err != nil {
			errs = append(errs, fmt.Errorf("%w: %v", ErrStop, err))
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

// Exited reports whether every server started has ended and been reaped
// (after Stop, or after a crash).
func (c *Cluster) Exited() bool {
	for _, p := range []*process{c.etcd, c.apiserver, c.controllerManager} {
		if p != nil && !p.exited() {
			return false
		}
	}
	return true
}
