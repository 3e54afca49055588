package replayer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	kjson "sigs.k8s.io/json"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/builtin"
	"github.com/lwreplay/lwreplay/internal/weakcache"
)

// mediaProtobuf is kube-apiserver's protobuf media type.
const mediaProtobuf = runtime.ContentTypeProtobuf

// pbSerializer encodes built-in kinds as kube-apiserver's protobuf
// serializer does: the magic prefix, then a runtime.Unknown with the
// object's apiVersion and kind around its protobuf bytes.
var pbSerializer = protobuf.NewSerializer(builtin.Scheme, builtin.Scheme)

// statusGVK is the kind of an ERROR event's object.
var statusGVK = schema.GroupVersionKind{Version: "v1", Kind: "Status"}

// gvkOf returns res's group, version and kind.
func gvkOf(res history.Resource) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind}
}

// prefersProtobuf reports whether r's Accept asks for protobuf first and
// gvk is a built-in kind. kube-apiserver then answers in protobuf:
// client-go's typed clients and controller-runtime's client send
// "application/vnd.kubernetes.protobuf, */*". A custom resource has no
// protobuf form; its answer is JSON, through the */* clause. A first
// clause with parameters (as=Table, as=PartialObjectMetadata) is not the
// plain object.
func prefersProtobuf(r *http.Request, gvk schema.GroupVersionKind) bool {
	a := r.Header.Get("Accept")
	if !strings.HasPrefix(a, mediaProtobuf) {
		return false
	}
	first, _, _ := strings.Cut(a, ",")
	media, params, err := mime.ParseMediaType(strings.TrimSpace(first))
	if err != nil || media != mediaProtobuf || len(params) != 0 {
		return false
	}
	return builtin.Scheme.Recognizes(gvk)
}

// pbMemo holds the protobuf form of JSON objects by their bytes: runs of a
// campaign answer the same objects again and again. It is emptied when it
// would hold more than pbMemoMax bytes. Its values are shared and never
// changed.
type pbMemo struct {
	mu    sync.RWMutex
	m     map[string][]byte
	bytes int
}

// pbMemoMax bounds what the process's memo holds, keys and values.
const pbMemoMax = 64 << 20

// protobufOf is the process's memo of toProtobuf.
var protobufOf pbMemo

func (c *pbMemo) get(obj []byte) ([]byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	pb, ok := c.m[string(obj)]
	return pb, ok
}

func (c *pbMemo) put(obj, pb []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.bytes+len(obj)+len(pb) > pbMemoMax {
		c.m, c.bytes = map[string][]byte{}, 0
	}
	c.m[string(obj)] = pb
	c.bytes += len(obj) + len(pb)
}

// toProtobuf returns obj, the JSON of a gvk object (kind and apiVersion
// included), in protobuf as kube-apiserver encodes it. obj is decoded into
// its Go type as kube-apiserver's JSON decoder does: fields the type does
// not know are dropped. It fails when obj does not decode.
func toProtobuf(obj []byte, gvk schema.GroupVersionKind) ([]byte, error) {
	if pb, ok := protobufOf.get(obj); ok {
		return pb, nil
	}
	into, err := builtin.Scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(obj, into); err != nil {
		return nil, fmt.Errorf("decoding a %s: %w", gvk.Kind, err)
	}
	into.GetObjectKind().SetGroupVersionKind(gvk)
	var buf bytes.Buffer
	if err := pbSerializer.Encode(into, &buf); err != nil {
		return nil, err
	}
	protobufOf.put(obj, buf.Bytes())
	return buf.Bytes(), nil
}

// objectPB is an object's protobuf, or why it has none.
type objectPB struct {
	pb, raw []byte // raw: the object's own bytes inside pb (unknownRaw)
	err     error
}

// objectPBs keeps each history object's protobuf while the object lives:
// runs of a campaign share the recorded objects, so each is encoded once,
// and a run's frames find it without rendering its JSON.
var objectPBs weakcache.Cache[history.Object, objectPB]

// objectProtobuf returns o, an object of res, in protobuf (toProtobuf of
// its JSON with kind and apiVersion).
func objectProtobuf(o *history.Object, res history.Resource) objectPB {
	return objectPBs.Get(o, func(o *history.Object) objectPB {
		pb, err := toProtobuf(o.WithKind(res.Kind, res.GroupVersion()), gvkOf(res))
		if err != nil {
			return objectPB{err: err}
		}
		raw, err := unknownRaw(pb)
		return objectPB{pb: pb, raw: raw, err: err}
	})
}

// writeObject answers r with obj, the JSON of a gvk object, and code: in
// protobuf when r prefers it (prefersProtobuf), in JSON otherwise. An
// object that does not decode as its kind is answered in JSON, which the
// client accepts through its */* clause.
func writeObject(w http.ResponseWriter, r *http.Request, gvk schema.GroupVersionKind, code int, obj []byte) {
	if prefersProtobuf(r, gvk) {
		if pb, err := toProtobuf(obj, gvk); err == nil {
			writeProtobuf(w, code, pb)
			return
		}
	}
	writeJSONCode(w, r, code, "application/json", obj)
}

// writeProtobuf writes pb, a protobuf answer, with code.
func writeProtobuf(w http.ResponseWriter, code int, pb []byte) {
	w.Header().Set("Content-Type", mediaProtobuf)
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(code)
	w.Write(pb)
}

// encodeProtobuf renders one event frame into fw.buf as kube-apiserver's
// protobuf watch encoder does: a 4-byte big-endian length, then a
// metav1.WatchEvent whose object is the protobuf of obj (a Status for an
// ERROR). An object that does not encode ends the stream, as
// kube-apiserver's watch server ends it on an encoding error.
func (fw *frameWriter) encodeProtobuf(typ history.EventType, obj []byte) error {
	gvk := *fw.pb
	if typ == history.Error {
		gvk = statusGVK
	}
	pb, err := toProtobuf(obj, gvk)
	if err != nil {
		return fmt.Errorf("%w: encoding a %s event: %w", errStreamEnd, typ, err)
	}
	return fw.eventProtobuf(typ, pb)
}

// eventProtobuf renders the frame of an event of typ whose object's
// protobuf is pb into fw.buf.
func (fw *frameWriter) eventProtobuf(typ history.EventType, pb []byte) error {
	ev := metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Raw: pb}}
	n := ev.Size()
	fw.buf.Reset()
	fw.buf.Grow(4 + n)
	b := fw.buf.AvailableBuffer()[:4+n]
	binary.BigEndian.PutUint32(b, uint32(n))
	if _, err := ev.MarshalToSizedBuffer(b[4:]); err != nil { // a sized buffer always takes it
		return fmt.Errorf("%w: encoding a %s event: %w", errStreamEnd, typ, err)
	}
	fw.buf.Write(b)
	return nil
}

// garbledProtobufFrame is what garble-frame sends in place of a protobuf
// frame: a whole frame whose WatchEvent has its type field in a wire type
// protobuf does not have (7), which the client's decoder refuses.
var garbledProtobufFrame = []byte{0, 0, 0, 2, 0x0f, 0}

// listProtobuf renders a list answer of a built-in kind in protobuf, as
// kube-apiserver encodes its typed list: the list's metadata (field 1)
// and each item's own protobuf (field 2) in a runtime.Unknown of kind
// <Kind>List. Each item's protobuf is the one its GET answers (toProtobuf),
// unwrapped.
func listProtobuf(res history.Resource, rv string, p page) ([]byte, error) {
	gvk := gvkOf(res)
	meta := metav1.ListMeta{ResourceVersion: rv, RemainingItemCount: p.remaining}
	if p.next != "" {
		meta.Continue = continueToken{rv: rv, start: p.next}.encode()
	}
	mb, err := meta.Marshal()
	if err != nil {
		return nil, err
	}
	inner := protowire.AppendTag(nil, 1, protowire.BytesType)
	inner = protowire.AppendBytes(inner, mb)
	for _, o := range p.items {
		opb := objectProtobuf(o, res)
		if opb.err != nil {
			return nil, opb.err
		}
		inner = protowire.AppendTag(inner, 2, protowire.BytesType)
		inner = protowire.AppendBytes(inner, opb.raw)
	}
	unk := &runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: res.GroupVersion(), Kind: gvk.Kind + "List"}, Raw: inner}
	var buf bytes.Buffer
	if err := pbSerializer.Encode(unk, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// unknownRaw returns the object's own bytes (runtime.Unknown's raw, field
// 2) of pb, a protobuf serializer's encoding, without copying them.
func unknownRaw(pb []byte) ([]byte, error) {
	b, ok := bytes.CutPrefix(pb, protobufMagic)
	if !ok {
		return nil, fmt.Errorf("not a protobuf object")
	}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		if num == 2 && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return nil, protowire.ParseError(n)
			}
			return v, nil
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
	}
	return nil, fmt.Errorf("a protobuf object without its raw bytes")
}

// protobufMagic starts every object kube-apiserver's protobuf serializer
// encodes.
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// protobufList returns the protobuf list answer when r prefers protobuf
// (prefersProtobuf) and every item encodes; ok is false for JSON.
func protobufList(r *http.Request, res history.Resource, rv string, p page) (pb []byte, ok bool) {
	if !prefersProtobuf(r, gvkOf(res)) {
		return nil, false
	}
	pb, err := listProtobuf(res, rv, p)
	return pb, err == nil
}

// objectFrameProtobuf writes one protobuf event whose object is o, of
// kind, from o's kept protobuf (objectProtobuf).
func (fw *frameWriter) objectFrameProtobuf(typ history.EventType, o *history.Object, kind string) error {
	if fw.err != nil {
		return fw.err
	}
	opb := objectProtobuf(o, history.Resource{Group: fw.pb.Group, Version: fw.pb.Version, Kind: kind})
	err := opb.err
	if err == nil {
		err = fw.eventProtobuf(typ, opb.pb)
	} else {
		err = fmt.Errorf("%w: encoding a %s event: %w", errStreamEnd, typ, err)
	}
	if err != nil {
		fw.err = err
		return err
	}
	return fw.write()
}
