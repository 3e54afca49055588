package harness

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/history"
)

// Env is what a target gets to run against one replay.
type Env struct {
	// Config reaches the replay through the in-process transport. Any client
	// built from it (clientset, dynamic, REST) runs at the wire level whatever
	// the run's Level; Clientset follows it.
	Config *rest.Config
	// Resource is the resource the run watches.
	Resource history.Resource
	// Probe collects the target's notifications, store and HasSynced.
	Probe *Probe
	// WatchList is the client path the run asks for: true, a reflector
	// that streams its initial state; false, LIST then WATCH.
	WatchList bool
	// Level is the run's level; ListerWatcher and Clientset honour it.
	Level level.Level

	cache   *level.Cache    // the typed level's decoded answers
	givenUp <-chan struct{} // closed once the run gives the target up
}

// GivenUp returns a channel closed once the run has given its target up: a
// goroutine of the target's ran on past the spin bound while virtual time
// stood still. The run then ends. A wait of the target's that only the
// clock could end may end on it, and so let the spin end (crtarget's cache
// does: controller-runtime's busy loop when stopped while its caches
// sync). The channel was made outside the run's bubble: a goroutine that
// waits on it keeps the bubble from idling. So wait on it only once a spin
// has stopped the clock anyway. nil (never closed) outside a run.
func (e *Env) GivenUp() <-chan struct{} {
	return e.givenUp
}

// ListerWatcher returns a ListerWatcher of Resource in all namespaces whose
// objects have example's Go type. It is level.Client.ListerWatcher at the
// run's level and WatchList setting; its error wraps ErrTarget.
func (e *Env) ListerWatcher(example runtime.Object) (cache.ListerWatcher, error) {
	return e.listerWatcher(example, false)
}

// SharedListerWatcher is ListerWatcher whose typed level hands out the
// decoded objects themselves, not copies. It is only for targets that, as
// client-go's own code, never change an object they are given (the
// built-in targets).
func (e *Env) SharedListerWatcher(example runtime.Object) (cache.ListerWatcher, error) {
	return e.listerWatcher(example, true)
}

// listerWatcher is ListerWatcher, handing out shared objects or copies.
func (e *Env) listerWatcher(example runtime.Object, shared bool) (cache.ListerWatcher, error) {
	lw, err := e.client().ListerWatcher(e.Resource, example, shared)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTarget, err)
	}
	return lw, nil
}

// client is how e reaches the replay.
func (e *Env) client() level.Client {
	if e.cache == nil && e.Level == level.Typed {
		e.cache = level.NewCache()
	}
	return level.Client{Config: e.Config, Level: e.Level, WatchList: e.WatchList, Cache: e.cache}
}
