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

	cache *level.Cache // the typed level's decoded answers
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
