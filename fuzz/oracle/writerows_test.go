package oracle_test

import (
	"fmt"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

// writtenConfigMaps is the resource of the writes that TestInvariants'
// rows of no-write-storm and no-conflict-loop judge. The helpers
// storedUpdates and conflicts make n writes of one key, one every every
// from 0 on.
var writtenConfigMaps = history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// storedUpdates returns n stored updates of key. Its outside says another
// actor changed it between each two. Then each write's RVBefore is not the
// RV the one before it stored.
func storedUpdates(key string, n int, every time.Duration, outside bool) []history.WriteAnswer {
	ws := make([]history.WriteAnswer, n)
	rv := 2000
	for i := range ws {
		if outside && i > 0 {
			rv++ // another actor's change
		}
		ws[i] = history.WriteAnswer{At: time.Duration(i) * every, Verb: "update", Resource: writtenConfigMaps, Key: key,
			RVBefore: fmt.Sprint(rv), RVAfter: fmt.Sprint(rv + 1), Code: 200, Event: history.Modified}
		rv++
	}
	return ws
}

// conflicts returns n updates of key answered 409 with reason, the
// object stored at rv (changed: at another rv each).
func conflicts(key string, n int, every time.Duration, reason string, changed bool) []history.WriteAnswer {
	ws := make([]history.WriteAnswer, n)
	for i := range ws {
		rv := "1004"
		if changed {
			rv = fmt.Sprint(3000 + i)
		}
		ws[i] = history.WriteAnswer{At: time.Duration(i) * every, Verb: "update", Resource: writtenConfigMaps, Key: key,
			RVBefore: rv, RVAfter: rv, Code: 409, Reason: reason}
	}
	return ws
}

// withWrites sets o's writes, logged.
func withWrites(ws ...[]history.WriteAnswer) func(o *observe.Observation) {
	return func(o *observe.Observation) {
		o.WritesLogged = true
		for _, w := range ws {
			o.Writes = append(o.Writes, w...)
		}
	}
}

// writeRequests returns n requests of verb for configmaps answered code
// (a verbatim replay's view of writes: no key).
func writeRequests(verb string, n, code int) []observe.Request {
	rs := make([]observe.Request, n)
	for i := range rs {
		rs[i] = observe.Request{At: time.Duration(i) * time.Millisecond, Resource: "configmaps", Verb: verb, Code: code}
	}
	return rs
}

// refusedCreates returns n creates of key answered 409 with reason, the
// object stored at rv (changed: at another rv each).
func refusedCreates(key string, n int, every time.Duration, reason string, changed bool) []history.WriteAnswer {
	ws := conflicts(key, n, every, reason, changed)
	for i := range ws {
		ws[i].Verb = "create"
	}
	return ws
}
