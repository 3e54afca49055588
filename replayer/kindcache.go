package replayer

import (
	"runtime"
	"sync"
	"weak"

	"github.com/lwreplay/lwreplay/history"
)

// Every run of a fuzz campaign serves the same recorded objects, so an
// object's JSON with kind and apiVersion, as a frame carries it, is built
// once while the object lives and shared (read-only) by every answer.

type withKindEntry struct {
	kind, apiVersion string
	raw              []byte
}

var withKindCache = struct {
	sync.RWMutex
	m map[weak.Pointer[history.Object]]withKindEntry
}{m: map[weak.Pointer[history.Object]]withKindEntry{}}

// withKind returns o.WithKind(kind, apiVersion), built once while o lives.
// The bytes are shared: callers must not change them.
func withKind(o *history.Object, kind, apiVersion string) []byte {
	wp := weak.Make(o)
	withKindCache.RLock()
	e, ok := withKindCache.m[wp]
	withKindCache.RUnlock()
	if ok && e.kind == kind && e.apiVersion == apiVersion {
		return e.raw
	}
	raw := o.WithKind(kind, apiVersion)
	withKindCache.Lock()
	defer withKindCache.Unlock()
	if _, ok := withKindCache.m[wp]; !ok {
		withKindCache.m[wp] = withKindEntry{kind: kind, apiVersion: apiVersion, raw: raw}
		runtime.AddCleanup(o, func(wp weak.Pointer[history.Object]) {
			withKindCache.Lock()
			defer withKindCache.Unlock()
			delete(withKindCache.m, wp)
		}, wp)
	}
	return raw
}
