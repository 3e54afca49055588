package actors

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
)

// ErrUnknownGate says a feature gate is none of kube-controller-manager's.
var ErrUnknownGate = errors.New("unknown kube-controller-manager feature gate")

// gatesMu serializes the builds that set kube-controller-manager's
// feature gates (process-wide) for their own duration. A build that sets
// none does not take it: a lock wait inside a synctest bubble is no
// durable block, so it would hold virtual time still while a holder of
// the same bubble waits on the replay. A gate set here is read only by
// its own controller, which no actor beside the target runs.
var gatesMu sync.Mutex

// withGates runs build with kube-controller-manager's feature gates set
// as gates says, then restores them. The controllers read their gates
// when built (NewStatefulSetController, ...), so a run's controllers keep
// the values they were built with. A gate it cannot set is an error.
func withGates(gates map[string]bool, build func() error) error {
	if len(gates) == 0 {
		return build()
	}
	gatesMu.Lock()
	defer gatesMu.Unlock()
	fg := utilfeature.DefaultMutableFeatureGate
	known := fg.GetAll()
	old := make(map[string]bool, len(gates))
	for _, n := range slices.Sorted(maps.Keys(gates)) {
		if _, ok := known[featuregate.Feature(n)]; !ok {
			return fmt.Errorf("%w %q", ErrUnknownGate, n)
		}
		old[n] = fg.Enabled(featuregate.Feature(n))
	}
	if err := fg.SetFromMap(gates); err != nil {
		return fmt.Errorf("kube-controller-manager feature gates %v: %w", gates, err)
	}
	err := build()
	if rerr := fg.SetFromMap(old); rerr != nil {
		err = errors.Join(err, fmt.Errorf("restoring feature gates %v: %w", old, rerr))
	}
	return err
}
