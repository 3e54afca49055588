package oracle

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/weakcache"
)

// StoreView is what a handler could read from the target's store when it
// was called, after the target had synced: a digest of the store's keys
// and resourceVersions.
type StoreView struct {
	// Delivery is the index in Observation.Deliveries of the call.
	Delivery int
	// Keys is how many objects the store held.
	Keys int
	// Sum is the digest: the sum of a hash of each key@resourceVersion,
	// the same for the same state whatever the order.
	Sum uint64
}

// ErrInconsistentView says a handler could read a store that held no state
// the server served.
var ErrInconsistentView = errors.New("inconsistent view")

// entrySum is one store entry's part of a StoreView's Sum: FNV-1a of
// key@rv, where key is "namespace/name" or, cluster-scoped, "name".
func entrySum(key, rv string) uint64 {
	return fnvAdd(fnvAdd(fnvAdd(fnvOffset, key), "@"), rv)
}

// objectSum is entrySum of an object given its namespace, name and
// resourceVersion, without building its key.
func objectSum(namespace, name, rv string) uint64 {
	h := uint64(fnvOffset)
	if namespace != "" {
		h = fnvAdd(fnvAdd(h, namespace), "/")
	}
	return fnvAdd(fnvAdd(fnvAdd(h, name), "@"), rv)
}

// FNV-1a's 64-bit parameters (hash/fnv's, which entrySum equals: a
// store view is taken after every notification, and hashing inline
// spares an allocation per entry).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnvAdd folds s into the FNV-1a hash h.
func fnvAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// ObjectSum is obj's part of a StoreView's Sum: entrySum of its key and
// resourceVersion; ok is false when obj is no object.
func ObjectSum(obj any) (sum uint64, ok bool) {
	if u, isU := obj.(*unstructured.Unstructured); isU && u != nil {
		// one lookup of the metadata map, not one per field
		m, _ := u.Object["metadata"].(map[string]any)
		ns, _ := m["namespace"].(string)
		name, _ := m["name"].(string)
		rv, _ := m["resourceVersion"].(string)
		return objectSum(ns, name, rv), true
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return 0, false
	}
	return objectSum(m.GetNamespace(), m.GetName(), m.GetResourceVersion()), true
}

// ViewOf digests a store's items (as StoreView.Sum); ok is false when an item is no object.
func ViewOf(items []any) (keys int, sum uint64, ok bool) {
	for _, it := range items {
		s, ok := ObjectSum(it)
		if !ok {
			return 0, 0, false
		}
		sum += s
	}
	return len(items), sum, true
}

// servedViews returns the digest of every state of l, position by
// position: the states a server could have served.
func servedViews(l *history.Log) map[uint64]bool {
	return servedViewsCache.Get(l, func(l *history.Log) map[uint64]bool {
		rvs := map[string]string{}
		var sum uint64
		for _, o := range l.Initial {
			rvs[o.Key()] = o.ResourceVersion
			sum += entrySum(o.Key(), o.ResourceVersion)
		}
		out := map[uint64]bool{sum: true}
		for _, e := range l.Events {
			k := e.Object.Key()
			if rv, ok := rvs[k]; ok {
				sum -= entrySum(k, rv)
				delete(rvs, k)
			}
			if e.Type != history.Deleted {
				rvs[k] = e.Object.ResourceVersion
				sum += entrySum(k, e.Object.ResourceVersion)
			}
			out[sum] = true
		}
		return out
	})
}

// servedViewsCache holds each log's served state digests.
var servedViewsCache weakcache.Cache[history.Log, map[uint64]bool]

func checkConsistentView(o *Observation) error {
	if err := needTruth(o, ErrInconsistentView); err != nil {
		return err
	}
	if !o.Gates[GateAtomicFIFO] {
		return fmt.Errorf("%w: client-go promises it with the AtomicFIFO gate on only", ErrNotJudged)
	}
	if b := FiredBreaking(o); len(b) > 0 {
		// a breaking fault makes the client hold states never served;
		// whether a handler reads one depends on scheduling
		return fmt.Errorf("%w: breaking fault %s fired", ErrNotJudged, b[0])
	}
	return viewViolations(o)
}

// viewViolations checks o's store views against the states its truth
// served, whatever the gates.
func viewViolations(o *Observation) error {
	served := servedViews(o.Truth)
	for _, v := range o.Views {
		if served[v.Sum] {
			continue
		}
		what := "a call"
		if v.Delivery < len(o.Deliveries) {
			d := o.Deliveries[v.Delivery]
			what = fmt.Sprintf("its %s of %s at rv %s, at %v", d.Op, d.Key, d.RV, d.At)
		}
		return fmt.Errorf("%w: delivery %d (%s): the store a handler could read held %d objects in a state the server never served",
			ErrInconsistentView, v.Delivery, what, v.Keys)
	}
	return nil
}
