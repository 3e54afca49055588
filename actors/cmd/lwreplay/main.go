//go:debug randseednop=0

// Command lwreplay is the lwreplay command (github.com/lwreplay/lwreplay/cmd/lwreplay)
// with the cluster's own controllers. `lwreplay serve CASSETTE --actors
// kube-controller-manager,scheduler,kubelet` runs them beside the replay. Each goes
// through the replay's transport as itself (replayer.TransportAs). So kubectl apply of
// a Deployment gets pods. It is built in the actors module, which requires
// k8s.io/kubernetes; from a checkout of lwreplay:
//
//	cd actors && go run ./cmd/lwreplay serve CASSETTE --actors NAME,...
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/lwreplay/lwreplay/actors"
	"github.com/lwreplay/lwreplay/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	reg := actors.Registry()
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr, cli.Options{Actors: &reg})
	stop()
	os.Exit(code)
}
