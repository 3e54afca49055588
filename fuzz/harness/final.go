package harness

import (
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/weakcache"
)

// finalRVs returns the final state of h's log of res, as key →
// resourceVersion.
func finalRVs(h *history.History, res history.Resource) map[string]string {
	objs := finalObjects(h, res)
	out := make(map[string]string, len(objs))
	for k, o := range objs {
		out[k] = o.ResourceVersion
	}
	return out
}

// finalObjectsCache holds each log's final objects by key.
var finalObjectsCache weakcache.Cache[history.Log, map[string]*history.Object]

// finalObjects returns the final state of h's log of res by key (shared:
// not to be changed).
func finalObjects(h *history.History, res history.Resource) map[string]*history.Object {
	l, ok := h.Log(res)
	if !ok {
		return nil
	}
	return finalObjectsCache.Get(l, func(l *history.Log) map[string]*history.Object {
		out := map[string]*history.Object{}
		for _, o := range l.StateAt(l.End()) {
			out[o.Key()] = o
		}
		return out
	})
}
