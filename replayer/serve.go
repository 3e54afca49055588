package replayer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ServeOption configures how Listen serves: HTTPS or plain HTTP, and the
// HTTP server's timeouts.
type ServeOption func(*serveOptions)

type serveOptions struct {
	insecureHTTP      bool // plain HTTP instead of HTTPS
	readHeaderTimeout time.Duration
	idleTimeout       time.Duration
	shutdownTimeout   time.Duration
}

// serveDefaults are kube-apiserver's own (k8s.io/apiserver's
// SecureServingInfo): HTTPS, and no write timeout, so that a watch lasts
// as long as it asks.
func serveDefaults() serveOptions {
	return serveOptions{
		readHeaderTimeout: 32 * time.Second, // kube-apiserver: just shy of its request timeout bound
		idleTimeout:       90 * time.Second, // kube-apiserver: http.DefaultTransport's keep-alive timeout
		shutdownTimeout:   5 * time.Second,
	}
}

// WithInsecureHTTP serves plain HTTP instead of HTTPS.
func WithInsecureHTTP() ServeOption { return func(o *serveOptions) { o.insecureHTTP = true } }

// WithIdleTimeout sets how long a keep-alive connection with no request
// in flight stays open (default 90 s, as kube-apiserver). An open watch
// is a request in flight: the idle timeout never cuts it.
func WithIdleTimeout(d time.Duration) ServeOption {
	return func(o *serveOptions) { o.idleTimeout = d }
}

// Serve answers plain HTTP requests on l until ctx is done, then ends
// every open watch and returns nil. Any other end is an error. Listen
// and Endpoint.Serve serve HTTPS.
func (s *Server) Serve(ctx context.Context, l net.Listener) error { return ServeHandler(ctx, s, l) }

// ServeHandler answers plain HTTP requests with h on l until ctx is done,
// then ends every open request and returns nil, as Server.Serve does.
func ServeHandler(ctx context.Context, h http.Handler, l net.Listener) error {
	return serve(ctx, h, l, nil, serveDefaults())
}

// serve answers requests with h on l (with TLS under cfg, when not nil)
// until ctx is done.
func serve(ctx context.Context, h http.Handler, l net.Listener, cfg *tls.Config, o serveOptions) error {
	hs := &http.Server{
		Handler:           h,
		TLSConfig:         cfg,
		ReadHeaderTimeout: o.readHeaderTimeout,
		IdleTimeout:       o.idleTimeout,
		MaxHeaderBytes:    1 << 20, // kube-apiserver's
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          log.New(io.Discard, "", 0), // a library never logs: a client's failed handshake is its own to report
	}
	done := make(chan error, 1)
	go func() {
		if cfg != nil {
			done <- hs.ServeTLS(l, "", "")
			return
		}
		done <- hs.Serve(l)
	}()
	select {
	case err := <-done:
		return fmt.Errorf("serve %s: %w", l.Addr(), err)
	case <-ctx.Done():
	}
	// Handlers see ctx done through their request contexts and return.
	shut, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		// A connection still waiting for its first request keeps
		// Shutdown waiting up to net/http's 5 s. Close what is left, as
		// every request has been told to end.
		if cerr := hs.Close(); cerr != nil || !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("shut down %s: %w", l.Addr(), errors.Join(err, cerr))
		}
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", l.Addr(), err)
	}
	return nil
}

// WriteKubeconfig writes a kubeconfig whose current context points at
// serverURL with no credentials, for kubectl and other clients. For an
// HTTPS server, Endpoint.WriteKubeconfig also writes the CA to trust.
func WriteKubeconfig(path, serverURL string) error { return writeKubeconfig(path, serverURL, nil) }

// placeholderToken is the bearer token a kubeconfig for an HTTPS server
// names. The server asks for no credentials. But kubectl prompts for a
// user name when an HTTPS cluster's kubeconfig names none.
const placeholderToken = "lwreplay-asks-for-no-credentials"

// writeKubeconfig writes a kubeconfig for serverURL, trusting caPEM when
// not nil. It appears whole: written beside path, then renamed, so a
// client waiting for the file never reads half of it.
func writeKubeconfig(path, serverURL string, caPEM []byte) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["lwreplay"] = &clientcmdapi.Cluster{Server: serverURL, CertificateAuthorityData: caPEM}
	cfg.AuthInfos["lwreplay"] = &clientcmdapi.AuthInfo{}
	if caPEM != nil {
		cfg.AuthInfos["lwreplay"].Token = placeholderToken
	}
	cfg.Contexts["lwreplay"] = &clientcmdapi.Context{Cluster: "lwreplay", AuthInfo: "lwreplay", Namespace: "default"}
	cfg.CurrentContext = "lwreplay"
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write kubeconfig %s: %w", path, werr)
	}
	return nil
}
