package level

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// The typed level's clientset decodes as client-go's generated clientset
// does, with the codecs rest.CodecFactoryForGeneratedClient gives, without
// conversion. But its JSON and protobuf serializers keep every decode in
// the cassette's memo, by the Go type decoded into and the bytes decoded.
// Each of these is decoded once per cassette:
//   - a LIST body (into a fresh list);
//   - a watch frame's envelope (into a fresh metav1.WatchEvent);
//   - an event's object (into nothing: its kind says its type).
//
// A JSON watch stream is framed by lines (see memoFramer); a protobuf
// one's length-prefixed frames cost no scan. Every caller gets its own
// deep copy. A decode with defaults (client-go's reading of an error body
// as a Status) or into an object that is not fresh is not kept.

// memoSerializer is client-go's negotiated serializer for generated
// clients, with memoizing JSON decoders.
type memoSerializer struct {
	runtime.NegotiatedSerializer
	infos []runtime.SerializerInfo
}

// newMemoSerializer returns a negotiated serializer keeping its JSON and
// protobuf decodes in d. (The generated clients ask built-in kinds in
// protobuf; the replay answers them so, as kube-apiserver does.)
func newMemoSerializer(d *Cache) memoSerializer {
	ns := rest.CodecFactoryForGeneratedClient(scheme.Scheme, scheme.Codecs).WithoutConversion()
	infos := append([]runtime.SerializerInfo(nil), ns.SupportedMediaTypes()...)
	for i, info := range infos {
		if info.MediaType != runtime.ContentTypeJSON && info.MediaType != runtime.ContentTypeProtobuf {
			continue
		}
		infos[i].Serializer = memoCodec{Serializer: info.Serializer, cache: d}
		if info.StreamSerializer != nil {
			stream := *info.StreamSerializer
			stream.Serializer = memoCodec{Serializer: stream.Serializer, cache: d}
			if info.MediaType == runtime.ContentTypeJSON {
				stream.Framer = memoFramer{Framer: stream.Framer, cache: d}
			}
			infos[i].StreamSerializer = &stream
		}
	}
	return memoSerializer{NegotiatedSerializer: ns, infos: infos}
}

// SupportedMediaTypes returns client-go's, JSON and protobuf memoizing.
func (s memoSerializer) SupportedMediaTypes() []runtime.SerializerInfo { return s.infos }

// memoCodec is a serializer whose decodes are kept in a memo.
type memoCodec struct {
	runtime.Serializer
	cache *Cache
}

// Decode decodes data as the serializer does, once per cassette for the
// same bytes and type of into. It returns a copy of the result: into
// itself, filled, when the result has into's type.
func (c memoCodec) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	t, ok := memoizable(defaults, into)
	if !ok {
		return c.Serializer.Decode(data, defaults, into)
	}
	m := c.cache.codecMemo(t)
	e := m.cached(m.lists, data, func() (e decodedEvent) {
		var fresh runtime.Object
		if t != nil {
			fresh, _ = reflect.New(t.Elem()).Interface().(runtime.Object)
		}
		e.obj, e.gvk, e.err = c.Serializer.Decode(data, nil, fresh)
		return e
	})
	var gvk *schema.GroupVersionKind
	if e.gvk != nil {
		g := *e.gvk
		gvk = &g
	}
	if e.obj == nil {
		return nil, gvk, e.err
	}
	out := e.obj.DeepCopyObject()
	if into != nil && reflect.TypeOf(out) == t {
		reflect.ValueOf(into).Elem().Set(reflect.ValueOf(out).Elem())
		out = into
	}
	return out, gvk, e.err
}

// memoizable returns the type a decode with these arguments is kept under.
// That is nil for a decode into nothing, and into's type for a decode into
// a fresh (zero) object. It returns false when the decode is not to be
// kept.
func memoizable(defaults *schema.GroupVersionKind, into runtime.Object) (reflect.Type, bool) {
	if defaults != nil {
		return nil, false
	}
	if into == nil {
		return nil, true
	}
	v := reflect.ValueOf(into)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct || !v.Elem().IsZero() {
		return nil, false
	}
	return v.Type(), true
}

// codecMemo returns the memo of decodes into objects of type t (nil: into
// nothing).
func (d *Cache) codecMemo(t reflect.Type) *memo {
	d.mu.RLock()
	m, ok := d.codecs[t]
	d.mu.RUnlock()
	if ok {
		return m
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if m, ok := d.codecs[t]; ok {
		return m
	}
	if d.codecs == nil {
		d.codecs = map[reflect.Type]*memo{}
	}
	m = &memo{owner: d, frames: map[string]decodedEvent{}, lists: map[string]decodedEvent{}}
	d.codecs[t] = m
	return m
}

// CodecEntries returns how many decodes and framed lines d's clientset
// memos keep.
func (d *Cache) CodecEntries() int {
	d.mu.RLock()
	memos := make([]*memo, 0, len(d.codecs))
	for _, m := range d.codecs {
		memos = append(memos, m)
	}
	d.mu.RUnlock()
	n := 0
	for _, m := range memos {
		m.mu.RLock()
		n += len(m.lists) + len(m.frames)
		m.mu.RUnlock()
	}
	return n
}
