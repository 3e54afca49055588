package fuzz

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/history"
)

// Level is how a run's client reaches the replay.
type Level int

const (
	// Typed serves the replay's answers through a ListerWatcher whose
	// objects were decoded once per cassette: every fault still acts as the
	// error or stream end the wire would have produced, but no event is
	// JSON-decoded twice. Exploration runs at this level.
	Typed Level = iota
	// Wire sends every request through the in-process HTTP transport and
	// client-go's own REST client and decoders: full fidelity. Every
	// failure found at the typed level is confirmed here.
	Wire
)

// String returns "typed" or "wire".
func (l Level) String() string {
	switch l {
	case Typed:
		return "typed"
	case Wire:
		return "wire"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// ParseLevel returns the level called s ("typed" or "wire").
func ParseLevel(s string) (Level, error) {
	for _, l := range []Level{Typed, Wire} {
		if l.String() == s {
			return l, nil
		}
	}
	return 0, fmt.Errorf("%w: %q (want typed or wire)", ErrLevel, s)
}

// ErrLevel is returned for a level name that is not one.
var ErrLevel = errors.New("unknown level")

// Env is what a target gets to run against one replay.
type Env struct {
	// Config reaches the replay through the in-process transport: any
	// client built from it (clientset, dynamic, REST) runs at the wire
	// level whatever the run's Level (Clientset follows it).
	Config *rest.Config
	// Resource is the resource the run watches.
	Resource history.Resource
	// Probe collects the target's notifications, store and HasSynced.
	Probe *Probe
	// WatchList is the client path the run asks for: true, a reflector
	// that streams its initial state; false, LIST then WATCH.
	WatchList bool
	// Level is the run's level; ListerWatcher and Clientset honour it.
	Level Level

	decoded *decoded
}

// ListerWatcher returns a ListerWatcher of Resource in all namespaces whose
// objects have example's Go type: *unstructured.Unstructured, or a type
// registered in client-go's scheme such as *corev1.ConfigMap. At the wire
// level it is client-go's REST client; at the typed level it serves the
// same answers with objects decoded once per cassette. With WatchList
// false it opts its reflector out of WatchList.
func (e *Env) ListerWatcher(example runtime.Object) (cache.ListerWatcher, error) {
	return e.listerWatcher(example, false)
}

// listerWatcher is ListerWatcher; with shared true, the typed level hands
// out the decoded objects themselves, not copies: only for targets that,
// as client-go's own code, never change an object they are given.
func (e *Env) listerWatcher(example runtime.Object, shared bool) (cache.ListerWatcher, error) {
	var lw *cache.ListWatch
	var err error
	if e.Level == Typed {
		lw, err = typedListWatch(e, example, shared)
	} else {
		lw, err = wireListWatch(e.Config, e.Resource, example)
	}
	if err != nil {
		return nil, err
	}
	if !e.WatchList {
		return noWatchList{lw}, nil
	}
	return lw, nil
}

// noWatchList is a ListWatch whose client does not support WatchList
// semantics: a reflector over it lists and then watches.
type noWatchList struct {
	*cache.ListWatch
}

// IsWatchListSemanticsUnSupported opts the reflector out of WatchList.
func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }
