package replayer

import (
	"runtime"
	"sync"
	"weak"

	"github.com/lwreplay/lwreplay/history"
)

// Every run of a fuzz campaign serves the same recorded objects. So an
// object's JSON with kind and apiVersion, as a frame carries it, is built
// once while the object lives. Every answer shares it, read-only. The
// cache holds at most withKindCacheBytes of JSON. A history far larger (a
// watch of a million events) would otherwise keep a second copy of every
// object it served. Past the bound, frames are built as sent.

// withKindCacheBytes bounds the JSON the cache holds.
const withKindCacheBytes = 32 << 20

type withKindEntry struct {
	kind, apiVersion string
	raw              []byte
}

var withKindCache = struct {
	sync.RWMutex // guards m and bytes
	m            map[weak.Pointer[history.Object]]withKindEntry
	bytes        int // the length of the JSON held
	max          int // the bound of bytes
}{m: map[weak.Pointer[history.Object]]withKindEntry{}, max: withKindCacheBytes}

// withKind returns o.WithKind(kind, apiVersion), built once while o lives
// (while the cache has room). The bytes are shared: callers must not
// change them.
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
	if _, ok := withKindCache.m[wp]; !ok && withKindCache.bytes+len(raw) <= withKindCache.max {
		withKindCache.m[wp] = withKindEntry{kind: kind, apiVersion: apiVersion, raw: raw}
		withKindCache.bytes += len(raw)
		runtime.AddCleanup(o, func(wp weak.Pointer[history.Object]) {
			withKindCache.Lock()
			defer withKindCache.Unlock()
			withKindCache.bytes -= len(withKindCache.m[wp].raw)
			delete(withKindCache.m, wp)
		}, wp)
	}
	return raw
}
