package content

import (
	"bytes"
	"encoding/json"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/weakcache"
)

// Comparing a target's store with the truth is the last step of every run,
// so it must cost little. A stored unstructured object is encoded once
// with sorted keys. The truth's object is encoded the same way once per
// history, cached while the object lives. Only when the bytes differ are
// both decoded and compared value by value.

// canonicalJSON returns raw re-encoded with sorted keys and no spacing;
// ok is false when raw is not JSON.
func canonicalJSON(raw []byte) (out []byte, ok bool) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

var canonCache weakcache.Cache[history.Object, []byte]

// canonicalOf returns o's content in canonical form (nil when it is not
// JSON), computed once while o lives.
func canonicalOf(o *history.Object) []byte {
	return canonCache.Get(o, func(o *history.Object) []byte {
		b, _ := canonicalJSON(o.Raw)
		return b
	})
}

// SameContent reports whether stored content got (JSON) equals want's,
// key order and spacing aside.
func SameContent(got []byte, want *history.Object) bool {
	if c := canonicalOf(want); c != nil && bytes.Equal(got, c) {
		return true
	}
	return sameJSON(got, want.Raw)
}
