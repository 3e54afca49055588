package observe

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// StoreView is what a handler could read from the target's store when it
// was called, after the target had synced. It is a digest of the store's
// keys and resourceVersions.
type StoreView struct {
	// Delivery is the index in Observation.Deliveries of the call.
	Delivery int
	// Keys is how many objects the store held.
	Keys int
	// Sum is the digest: the sum of a hash of each key@resourceVersion,
	// the same for the same state whatever the order.
	Sum uint64
}

// EntrySum is one store entry's part of a StoreView's Sum: FNV-1a of
// key@rv, where key is "namespace/name" or, cluster-scoped, "name".
func EntrySum(key, rv string) uint64 {
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
