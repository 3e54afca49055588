package harness

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/weakcache"
)

// Comparing a target's store with the truth is the last step of every run,
// so it must cost little: a stored unstructured object is encoded once
// with sorted keys, the truth's object is encoded the same way once per
// history (cached while the object lives), and only when the bytes differ
// are both decoded and compared value by value.

// decodedCache holds each truth object's content decoded into any.
var decodedCache weakcache.Cache[history.Object, any]

// decodedOf returns o's content decoded (nil when it is not JSON).
func decodedOf(o *history.Object) any {
	return decodedCache.Get(o, func(o *history.Object) any {
		var v any
		if err := json.Unmarshal(o.Raw, &v); err != nil {
			return nil
		}
		return v
	})
}

// sameAsWanted returns want's object for obj's key when obj is an
// unstructured object at its resourceVersion with the same content.
func sameAsWanted(obj any, want map[string]*history.Object) (*history.Object, bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u == nil || want == nil {
		return nil, false
	}
	key := u.GetName()
	if ns := u.GetNamespace(); ns != "" {
		key = ns + "/" + key
	}
	w, ok := want[key]
	if !ok || w.ResourceVersion != u.GetResourceVersion() {
		return nil, false
	}
	m, ok := decodedOf(w).(map[string]any)
	if !ok || !sameObject(u.Object, m) {
		return nil, false
	}
	return w, true
}

// sameObject reports whether an unstructured object's content equals a
// decoded one's, kind and apiVersion aside (a history object has none).
func sameObject(u, want map[string]any) bool {
	n := 0
	for k, v := range u {
		if k == "kind" || k == "apiVersion" {
			continue
		}
		n++
		w, ok := want[k]
		if !ok || !sameValue(v, w) {
			return false
		}
	}
	return n == len(want)
}

// sameValue compares an unstructured JSON value (int64 and float64
// numbers) with an encoding/json one (float64 numbers).
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameValue(a[i], b[i]) {
				return false
			}
		}
		return true
	case int64:
		f, ok := b.(float64)
		return ok && float64(a) == f && f == float64(int64(f))
	case float64:
		f, ok := b.(float64)
		return ok && a == f
	case string:
		s, ok := b.(string)
		return ok && a == s
	case bool:
		v, ok := b.(bool)
		return ok && a == v
	case nil:
		return b == nil
	}
	return false
}
