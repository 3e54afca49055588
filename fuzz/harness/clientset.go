package harness

import (
	"fmt"

	"k8s.io/client-go/kubernetes"
)

// Clientset returns a clientset of the replay, for targets built as most
// controllers are: informers from a SharedInformerFactory, listers, typed
// clients. It is level.Client.Clientset at the run's level and WatchList
// setting; its error wraps ErrTarget.
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
