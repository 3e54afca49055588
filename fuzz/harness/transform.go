package harness

import (
	"bytes"
	"encoding/json"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/history"
)

// A target whose store holds each object as a transform left it registers
// that transform with the probe. An example is an informer's
// TransformFunc: controller-runtime's cache sets one per kind and
// namespace from its options. Its stored objects are then compared with
// the truth's objects passed through the same transform. What the
// transform drops or changes, it drops or changes on both sides. A store
// whose transform did not run, or ran on an older object, still differs.

// SetStoreTransform registers fn, the transform the target's store applies
// to each object before storing it. The run compares a stored object with
// the truth's object at its resourceVersion, decoded into the stored
// object's Go type and passed through fn. Each call of fn gets a fresh
// object of its own, which it may change in place. Nil (the default):
// stored objects are compared as served, less Target.StoreOmits.
func (r *Probe) SetStoreTransform(fn func(any) (any, error)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.transform = fn
}

// sameTransformed reports whether obj, a stored object whose JSON without
// kind and apiVersion is raw, is want passed through fn. That is, want
// decoded into a new value of obj's type, transformed, encodes as raw.
func sameTransformed(obj any, raw []byte, want *history.Object, fn func(any) (any, error)) bool {
	if fn == nil {
		return false
	}
	fresh, ok := freshOf(obj, want)
	if !ok {
		return false
	}
	out, err := fn(fresh)
	if err != nil || out == nil {
		return false
	}
	o, err := level.ObjectOf(out)
	return err == nil && bytes.Equal(o.Raw, raw)
}

// freshOf returns want's object decoded into a new value of obj's type.
// That is an unstructured object (with obj's kind and apiVersion), an
// object of metadata only, or a typed object. It returns false when want
// does not decode.
func freshOf(obj any, want *history.Object) (any, bool) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		var m map[string]any
		if o == nil || utiljson.Unmarshal(want.Raw, &m) != nil {
			return nil, false
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetGroupVersionKind(o.GroupVersionKind())
		return u, true
	case *metav1.PartialObjectMetadata:
		if o == nil {
			return nil, false
		}
		p := &metav1.PartialObjectMetadata{TypeMeta: o.TypeMeta}
		if json.Unmarshal(want.Raw, p) != nil {
			return nil, false
		}
		p.TypeMeta = o.TypeMeta
		return p, true
	}
	t := reflect.TypeOf(obj)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	fresh := reflect.New(t.Elem()).Interface()
	if json.Unmarshal(want.Raw, fresh) != nil {
		return nil, false
	}
	return fresh, true
}
