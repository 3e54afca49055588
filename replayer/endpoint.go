package replayer

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/cert"
)

// Endpoint is a listening socket for the replayer's HTTP face. By default
// it serves HTTPS, as a real kube-apiserver does, with a serving
// certificate signed by a CA made for it alone. Under WithInsecureHTTP it
// serves plain HTTP.
type Endpoint struct {
	// URL is what a client dials: https://127.0.0.1:PORT. A server on
	// every interface (0.0.0.0, ::) is dialled on 127.0.0.1.
	URL string
	// CAData is the PEM of the CA a client must trust (a kubeconfig's
	// certificate-authority-data); nil for plain HTTP.
	CAData []byte

	l    net.Listener
	tls  *tls.Config // nil for plain HTTP
	opts serveOptions
}

// Listen opens addr (host:port; port 0 picks a free one) for Serve. Under
// HTTPS (the default) it makes a fresh self-signed CA and a serving
// certificate it signed. The certificate is for 127.0.0.1, ::1, localhost
// and addr's host (and, for every interface, this machine's host name).
func Listen(addr string, opts ...ServeOption) (*Endpoint, error) {
	o := serveDefaults()
	for _, fn := range opts {
		fn(&o)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen %q: %w", addr, err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	e := &Endpoint{l: l, opts: o}
	dial := l.Addr().String()
	if tcp, ok := l.Addr().(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		dial = net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
	}
	if o.insecureHTTP {
		e.URL = "http://" + dial
		return e, nil
	}
	e.URL = "https://" + dial
	if e.tls, e.CAData, err = servingTLS(host); err != nil {
		l.Close()
		return nil, fmt.Errorf("listen %s: serving certificate: %w", addr, err)
	}
	return e, nil
}

// servingTLS makes a fresh CA and a certificate it signed for host and
// loopback, and returns the TLS configuration serving it (as
// kube-apiserver's: TLS 1.2 or newer, HTTP/2 or HTTP/1.1) and the CA's
// PEM.
func servingTLS(host string) (*tls.Config, []byte, error) {
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	dns := []string{"localhost"}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if name, err := os.Hostname(); err == nil && name != "localhost" {
			dns = append(dns, name)
		}
	}
	if host == "" {
		host = "localhost"
	}
	// The same helper kube-apiserver uses when it is given no certificate.
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey(host, ips, dns)
	if err != nil {
		return nil, nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, err
	}
	chain, err := cert.ParseCertsPEM(certPEM) // the serving certificate, then its CA
	if err != nil {
		return nil, nil, err
	}
	if len(chain) < 2 {
		return nil, nil, fmt.Errorf("got %d certificates, want the serving one and its CA", len(chain))
	}
	ca, err := cert.EncodeCertificates(chain[len(chain)-1])
	if err != nil {
		return nil, nil, err
	}
	cfg := &tls.Config{
		Certificates: []tls.Certificate{pair},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}
	return cfg, ca, nil
}

// Addr returns the address the endpoint listens on.
func (e *Endpoint) Addr() net.Addr { return e.l.Addr() }

// Loopback reports whether only this machine can reach the endpoint.
func (e *Endpoint) Loopback() bool {
	tcp, ok := e.l.Addr().(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// Serve answers requests with h until ctx is done, then ends every open
// request and returns nil. Any other end is an error.
func (e *Endpoint) Serve(ctx context.Context, h http.Handler) error {
	return serve(ctx, h, e.l, e.tls, e.opts)
}

// Close closes the listener of an endpoint that will not Serve.
func (e *Endpoint) Close() error { return e.l.Close() }

// WriteKubeconfig writes a kubeconfig for the endpoint to path, with the
// CA to trust under HTTPS and no credentials.
func (e *Endpoint) WriteKubeconfig(path string) error { return writeKubeconfig(path, e.URL, e.CAData) }

// RESTConfig returns a client configuration for the endpoint.
func (e *Endpoint) RESTConfig() *rest.Config {
	return &rest.Config{Host: e.URL, TLSClientConfig: rest.TLSClientConfig{CAData: e.CAData}}
}
