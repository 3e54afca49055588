package harness

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/weakcache"
)

// Comparing a target's store with the truth is the last step of every run,
// so it must cost little:
//   - a stored unstructured object is encoded once with sorted keys;
//   - the truth's object is encoded the same way once per history (cached
//     while the object lives);
//   - only when the bytes differ are both decoded and compared value by
//     value.

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

// sameAsWanted returns want's object for obj's key when obj matches it at
// its resourceVersion. An unstructured object must have the same content.
// A PartialObjectMetadata (a metadata informer's) must have the same
// metadata: an object of metadata only is compared on metadata only.
// The fields of om are left out of want's object and must be absent from
// obj (Target.StoreOmits).
func sameAsWanted(obj any, want map[string]*history.Object, om omission) (*history.Object, bool) {
	if want == nil {
		return nil, false
	}
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		if o == nil {
			return nil, false
		}
		w, m, ok := wantedAt(o, want)
		return w, ok && sameFields(o.Object, m, om, true)
	case *metav1.PartialObjectMetadata:
		if o == nil {
			return nil, false
		}
		w, m, ok := wantedAt(o, want)
		if !ok {
			return nil, false
		}
		got, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&o.ObjectMeta)
		if err != nil {
			return w, false
		}
		if om == nil {
			return w, sameValue(got, m["metadata"])
		}
		return w, sameView(map[string]any{"metadata": got}, map[string]any{"metadata": m["metadata"]}, om)
	}
	return nil, false
}

// wantedAt returns want's object of obj's key and its decoded content,
// when it is at obj's resourceVersion.
func wantedAt(obj metav1.Object, want map[string]*history.Object) (*history.Object, map[string]any, bool) {
	key := obj.GetName()
	if ns := obj.GetNamespace(); ns != "" {
		key = ns + "/" + key
	}
	w, ok := want[key]
	if !ok || w.ResourceVersion != obj.GetResourceVersion() {
		return nil, nil, false
	}
	m, ok := decodedOf(w).(map[string]any)
	return w, m, ok
}

// sameTyped reports whether obj, a typed object whose JSON without kind
// and apiVersion is raw, holds what want holds as far as obj's type can
// tell. A typed object is a Go struct a typed client decodes into. The
// test is that want decoded into a new value of obj's type encodes as raw.
// A type shows fields of its own the truth may lack: a kubebuilder type's
// Status struct encodes as "status":{} where the object has no status.
// It also drops fields it does not know. A typed client sees the object
// so. A store compared byte for byte with the truth would differ on what
// no typed client can change. Want's encoding through a type is computed
// once while want lives.
func sameTyped(obj any, raw []byte, want *history.Object) bool {
	b := typedEncoding(obj, want)
	return len(b) > 0 && bytes.Equal(raw, b)
}

// typedEncoding returns want decoded into a new value of obj's type (a
// typed object's) and encoded again, without kind and apiVersion. It
// returns nil when obj is no typed object or want does not decode into its
// type.
func typedEncoding(obj any, want *history.Object) []byte {
	t := reflect.TypeOf(obj)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	if _, ok := obj.(*unstructured.Unstructured); ok {
		return nil
	}
	enc := typedCache.Get(want, func(*history.Object) *typedEncodings { return &typedEncodings{} })
	b, ok := enc.m.Load(t)
	if !ok {
		var out []byte
		round := reflect.New(t.Elem()).Interface()
		if json.Unmarshal(want.Raw, round) == nil {
			out, _ = json.Marshal(round) // no kind or apiVersion: want has none
		}
		b, _ = enc.m.LoadOrStore(t, out)
	}
	return b.([]byte)
}

// typedCache holds each truth object's encodings through the types of the
// typed objects it was compared with.
var typedCache weakcache.Cache[history.Object, *typedEncodings]

// typedEncodings maps a type (reflect.Type) to an object's JSON decoded
// into a value of it and encoded again (nil: it does not decode).
type typedEncodings struct{ m sync.Map }

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
