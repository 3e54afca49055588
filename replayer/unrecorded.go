package replayer

import (
	"encoding/json"
	"strconv"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/discovery"
)

// A replay that takes writes serves a resource its history does not
// record as a resource with no objects yet, when it knows the resource.
// It knows:
//   - a built-in one (discovery.Builtin, which its discovery lists from
//     the start);
//   - a custom resource whose CustomResourceDefinition the served history
//     holds (recorded, or created by the target);
//   - for a create, the kind its body names.
//
// Its log is made on the first request for it, starting at the newest
// resourceVersion served. So a controller's informer of what it creates
// lists nothing and watches, as against a real apiserver. A read-only
// replay answers such a request 404, as one that recorded nothing for it.

// logFor returns the served log of q's resource. For a resource the
// history does not record, a writable replay makes its empty log when it
// knows the resource. A create's body may name it by its kind.
func (e *engine) logFor(q history.RequestInfo, body []byte) (*history.Log, bool) {
	if l, ok := e.store.log(q.Resource); ok {
		return l, true
	}
	if e.opts.readOnly {
		return nil, false
	}
	res, ok := e.knownResource(q, body)
	if !ok {
		return nil, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	truth := e.store.history()
	if l, ok := truth.Log(res); ok { // made meanwhile
		return l, true
	}
	if !e.makesLogs() {
		return nil, false
	}
	h, err := history.AddLog(truth, res, e.emptyLogStart(truth))
	if err != nil {
		return nil, false
	}
	e.store.addLog(h, e.discoveryOf(h))
	l, ok := h.Log(res)
	return l, ok
}

// makesLogs reports whether the replay makes the empty log of a resource
// the served history does not record. One that may take writes does,
// whatever its resourceVersions. Opaque ones take no writes, but a
// controller's informer of what it would create still lists and watches:
// its manager waits for that cache. Only then does discovery list the
// built-in resources (discoveryOf).
func (e *engine) makesLogs() bool {
	return !e.opts.readOnly
}

// emptyLogStart is the resourceVersion an empty log made in h starts at.
// In a numeric history it is the newest that has happened in any resource
// (happenedNewest), or "1" in an empty one. In an opaque one (opaque-rv)
// it is the newest served RV of any log. The made log shares h's order,
// so that the merged order places it.
func (e *engine) emptyLogStart(h *history.History) string {
	if o := h.Order(); o != nil && !o.Numeric() {
		newest := ""
		for _, l := range h.Logs {
			rv := e.store.happenedRV(l, e.store.available(l))
			if newest == "" || o.Less(newest, rv) {
				newest = rv
			}
		}
		if newest != "" {
			return newest
		}
	}
	return strconv.FormatUint(max(e.store.happenedNewest(h), 1), 10)
}

// knownResource returns q's resource, whole (kind and scope), when the
// replay knows it.
func (e *engine) knownResource(q history.RequestInfo, body []byte) (history.Resource, bool) {
	res := q.Resource
	if c, ok := e.store.crdVersion(res); ok && c.Served { // its CRD's kind and scope (crd.go)
		return c.Resource, true
	}
	if b, ok := discovery.BuiltinResource(res.Group, res.Version, res.Resource); ok {
		return b, true
	}
	var typ struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
	}
	if len(body) > 0 && json.Unmarshal(body, &typ) == nil && typ.Kind != "" && typ.APIVersion == res.GroupVersion() {
		res.Kind, res.Namespaced = typ.Kind, q.Namespace != ""
		return res, true
	}
	return history.Resource{}, false
}
