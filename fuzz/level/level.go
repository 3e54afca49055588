package level

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/history"
)

// Level is how a run's client reaches the replay.
type Level int

const (
	// Typed serves the replay's answers through a ListerWatcher whose objects
	// were decoded once per cassette. Every fault still acts as the error or
	// stream end the wire would have produced, but no event is JSON-decoded
	// twice. Exploration runs at this level.
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

// Parse returns the level called s ("typed" or "wire").
func Parse(s string) (Level, error) {
	for _, l := range []Level{Typed, Wire} {
		if l.String() == s {
			return l, nil
		}
	}
	return 0, fmt.Errorf("%w: %q (want typed or wire)", ErrLevel, s)
}

// ErrLevel is returned for a level name that is not one.
var ErrLevel = errors.New("unknown level")

// ReplayHost is the host a run's clients are pointed at: the in-process
// transport answers every request and never dials it.
const ReplayHost = "http://replay.invalid"

// ErrSetup is returned when a client of the replay cannot be made.
var ErrSetup = errors.New("client setup failed")

// Client is how one run's target reaches the replay. It holds its REST
// config (the in-process transport), level and client path, and the Cache
// its typed level shares with the cassette's other runs.
type Client struct {
	// Config reaches the replay through the in-process transport.
	Config *rest.Config
	// Level is the run's level.
	Level Level
	// WatchList is the client path: true, a reflector that streams its
	// initial state; false, LIST then WATCH.
	WatchList bool
	// Cache holds the decoded answers of the typed level; nil makes a
	// fresh one on each call.
	Cache *Cache
}

// ListerWatcher returns a ListerWatcher of res in all namespaces whose
// objects have example's Go type. That is *unstructured.Unstructured, or a
// type registered in client-go's scheme such as *corev1.ConfigMap. At the
// wire level it is client-go's REST client. At the typed level it serves
// the same answers with objects decoded once per cassette. With WatchList
// false it opts its reflector out of WatchList.
//
// With shared true, the typed level hands out the cached objects
// themselves, not copies. That is only for targets that, as client-go's
// own code, never change an object they are given.
func (c Client) ListerWatcher(res history.Resource, example runtime.Object, shared bool) (cache.ListerWatcher, error) {
	var lw *cache.ListWatch
	var err error
	if c.Level == Typed {
		lw, err = typedListWatch(c.Config, c.cache(), res, example, shared)
	} else {
		lw, err = wireListWatch(c.Config, res, example)
	}
	if err != nil {
		return nil, err
	}
	if !c.WatchList {
		return noWatchList{lw}, nil
	}
	return lw, nil
}

// Clientset returns a clientset of the replay, for targets built as most
// controllers are: informers from a SharedInformerFactory, listers, typed
// clients. At the wire level it is kubernetes.NewForConfig(Config).
// At the typed level it is the same client-go code: REST clients, their
// retries, errors and watch decoders. Only its JSON decodes are kept per
// cassette, in the memo the typed level's ListerWatcher uses. A LIST body
// or watch frame seen before costs a map lookup and a deep copy instead of
// a decode. So HTTP errors, 410s, cut streams and garbled frames surface as
// the very errors the wire level gives. Its Discovery client is the wire
// level's. With WatchList false the clientset opts its informers'
// reflectors out of WatchList, as ListerWatcher does.
//
//	cs, err := c.Clientset()
//	factory := informers.NewSharedInformerFactory(cs, 0)
func (c Client) Clientset() (kubernetes.Interface, error) {
	if c.Level != Typed {
		cs, err := kubernetes.NewForConfig(c.Config)
		if err != nil {
			return nil, fmt.Errorf("%w: clientset: %w", ErrSetup, err)
		}
		if !c.WatchList {
			return noWatchListClientset{cs}, nil
		}
		return cs, nil
	}
	return newMemoClientset(c.Config, c.cache(), !c.WatchList)
}

// cache returns c's cached answers, or fresh ones.
func (c Client) cache() *Cache {
	if c.Cache == nil {
		return NewCache()
	}
	return c.Cache
}

// noWatchList is a ListWatch whose client does not support WatchList
// semantics: a reflector over it lists and then watches.
type noWatchList struct {
	*cache.ListWatch
}

// IsWatchListSemanticsUnSupported opts the reflector out of WatchList.
func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// noWatchListClientset is a clientset whose informers' reflectors list and
// then watch.
type noWatchListClientset struct {
	kubernetes.Interface
}

// IsWatchListSemanticsUnSupported opts the reflectors out of WatchList.
func (noWatchListClientset) IsWatchListSemanticsUnSupported() bool { return true }
