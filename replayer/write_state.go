package replayer

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/writes"
)

// The state a write sees: a log at a position (writes.State and
// writes.Lister), and the namespaces NamespaceLifecycle admission looks
// up.

// writeState is the state of a log at a position, as a write sees it.
// Each Get is a keyed lookup (history.Log.ObjectAt, O(log n)); the state
// is never built.
type writeState struct {
	l *history.Log
	p int
}

// namespaceResource is the core namespaces resource.
var namespaceResource = history.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}

// namespaceLookup returns the namespaces of truth as they are at base,
// for the NamespaceLifecycle admission of a write (writes.Env.Namespace).
// It is nil when truth holds no namespaces log.
func namespaceLookup(truth *history.History, base uint64) func(string) (*unstructured.Unstructured, bool) {
	l, ok := truth.Log(namespaceResource)
	if !ok {
		return nil
	}
	return writeStateOf(l, after(l, base)).Get
}

// writeStateOf returns the state of l at position p.
func writeStateOf(l *history.Log, p int) writeState {
	return writeState{l: l, p: p}
}

// Get returns the object stored under key, decoded.
func (st writeState) Get(key string) (*unstructured.Unstructured, bool) {
	o, ok := st.l.ObjectAt(key, st.p)
	if !ok {
		return nil, false
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(o.WithKind(st.l.Resource.Kind, st.l.Resource.GroupVersion())); err != nil {
		return nil, false
	}
	return u, true
}

// rawWriteState is a writeState that is a writes.RawState: a write reuses
// the field manager's answer to a request it has seen on the same stored
// object (WithWriteReuse).
type rawWriteState struct{ writeState }

// Raw returns the JSON of the object stored under key, which Get decodes
// (without its kind and apiVersion, the log's).
func (st rawWriteState) Raw(key string) ([]byte, bool) {
	o, ok := st.l.ObjectAt(key, st.p)
	if !ok {
		return nil, false
	}
	return o.Raw, true
}

var _ writes.RawState = rawWriteState{}

// writeState is a writes.Lister: a delete of a collection lists it.
var _ writes.Lister = writeState{}

// List returns the objects of namespace ns ("" for all), decoded, in key
// order.
func (st writeState) List(ns string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, o := range st.l.StateAt(st.p) { // in key order
		if ns != "" && o.Namespace != ns {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(o.WithKind(st.l.Resource.Kind, st.l.Resource.GroupVersion())); err != nil {
			return nil, fmt.Errorf("%s %s: %w", st.l.Resource.ID(), o.Key(), err)
		}
		out = append(out, u)
	}
	return out, nil
}
