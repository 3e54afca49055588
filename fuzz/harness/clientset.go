package harness

import (
	"fmt"

	"k8s.io/client-go/kubernetes"
)

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
//	cs, err := env.Clientset()
//	factory := informers.NewSharedInformerFactory(cs, 0)
func (e *Env) Clientset() (kubernetes.Interface, error) {
	cs, err := e.client().Clientset()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTarget, err)
	}
	return cs, nil
}
