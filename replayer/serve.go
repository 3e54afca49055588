package replayer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Serve answers HTTP requests on l until ctx is done, then ends every open
// watch and returns nil. Any other end is an error.
func (s *Server) Serve(ctx context.Context, l net.Listener) error { return ServeHandler(ctx, s, l) }

// ServeHandler answers HTTP requests with h on l until ctx is done, then
// ends every open request and returns nil, as Server.Serve does.
func ServeHandler(ctx context.Context, h http.Handler, l net.Listener) error {
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          nil,
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(l) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve %s: %w", l.Addr(), err)
	case <-ctx.Done():
	}
	// Handlers see ctx done through their request contexts and return.
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		hs.Close()
		return fmt.Errorf("shut down %s: %w", l.Addr(), err)
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", l.Addr(), err)
	}
	return nil
}

// WriteKubeconfig writes a kubeconfig whose current context points at
// serverURL with no credentials, for kubectl and other clients.
func WriteKubeconfig(path, serverURL string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["lwreplay"] = &clientcmdapi.Cluster{Server: serverURL}
	cfg.AuthInfos["lwreplay"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["lwreplay"] = &clientcmdapi.Context{Cluster: "lwreplay", AuthInfo: "lwreplay", Namespace: "default"}
	cfg.CurrentContext = "lwreplay"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}
