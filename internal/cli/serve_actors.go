package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/replayer"
)

// ActorsModule is the module whose lwreplay has the cluster's own
// controllers, in the directory actors/ of lwreplay's repository. Its
// go.mod replaces k8s.io/kubernetes's staging modules. So it is run from a
// checkout (`go run ./cmd/lwreplay` in actors/). `go run module@version`
// refuses a module with replace directives.
const ActorsModule = "github.com/lwreplay/lwreplay/actors"

// lookupActors returns the actors --actors names. It is a usage error
// when this lwreplay has none (it says where the one that has them is),
// or when a name is unknown.
func lookupActors(o Options, names []string) ([]actor.Actor, error) {
	if len(names) == 0 {
		return nil, nil
	}
	if o.Actors == nil {
		return nil, fmt.Errorf("%w: --actors %s: this lwreplay has no actors; the cluster's own controllers (kube-controller-manager's, a scheduler, a kubelet) "+
			"need k8s.io/kubernetes, so they are in the lwreplay of the module %s (the directory actors/ of a checkout of lwreplay): "+
			"cd actors && go run ./cmd/lwreplay serve CASSETTE --actors %s",
			errUsage, strings.Join(names, ","), ActorsModule, strings.Join(names, ","))
	}
	as, err := o.Actors.Lookup(names...)
	if err != nil {
		return nil, fmt.Errorf("%w: --actors: %w", errUsage, err)
	}
	return as, nil
}

// startActors runs each actor against srv as itself (TransportAs) until
// ctx ends. An actor that fails before says so on stderr. wait waits for
// every actor to return, and joins their errors.
func startActors(ctx context.Context, srv *replayer.Server, as []actor.Actor, stderr io.Writer) (wait func() error) {
	var wg sync.WaitGroup
	errs := make([]error, len(as))
	for i, a := range as {
		cfg := &rest.Config{Host: "http://replay.invalid", Transport: srv.TransportAs(a.Name), UserAgent: actor.UserAgent(a.Name), QPS: -1}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := a.Run(ctx, actor.Env{Config: cfg}); err != nil && ctx.Err() == nil {
				errs[i] = fmt.Errorf("actor %s: %w", a.Name, err)
				fmt.Fprintf(stderr, "lwreplay serve: %v\n", errs[i])
			}
		}()
	}
	return func() error {
		wg.Wait()
		return errors.Join(errs...)
	}
}

// actorsKnown is the --actors help's list of o's actors.
func actorsKnown(o Options) string {
	if o.Actors == nil {
		return ""
	}
	return "; known: " + strings.Join(o.Actors.Names(), ", ")
}

// actorList names as, comma-separated.
func actorList(as []actor.Actor) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = a.Name
	}
	return strings.Join(names, ",")
}
