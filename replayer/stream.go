package replayer

import (
	"bytes"
	"encoding/json"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/builtin"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

// frameWriter writes a watch stream as kube-apiserver's JSON watch encoder
// does: one {"type":...,"object":...} document and a newline per event.
// Each is flushed at once. While more events are ready (hold), it flushes
// only every holdBytes. Likewise, kube-apiserver's watch server flushes
// only once no event is queued.
type frameWriter struct {
	w    http.ResponseWriter
	f    http.Flusher // nil when the writer cannot flush
	buf  bytes.Buffer
	err  error
	hold bool // more events are ready: flush every holdBytes
	held int  // bytes written since the last flush
	// table renders each event's object as a Table; nil when the watch
	// asked for none.
	table *tableView
	// meta renders each event's object as a PartialObjectMetadata; nil
	// when the watch asked for none.
	meta *metaView
	// pb is the kind of the watch's objects when it is answered in
	// protobuf (watchWriter); nil for JSON.
	pb *schema.GroupVersionKind
}

func newFrameWriter(w http.ResponseWriter) *frameWriter {
	f, _ := w.(http.Flusher)
	return &frameWriter{w: w, f: f}
}

// watchWriter returns the frame writer of a watch on res, in the encoding
// r's Accept negotiates: protobuf for a built-in kind whose client prefers
// it (prefersProtobuf), JSON otherwise, Table and metadata views included.
func watchWriter(w http.ResponseWriter, r *http.Request, res history.Resource) *frameWriter {
	fw := newFrameWriter(w)
	fw.table = tableOf(r)
	fw.meta = metadataOf(r)
	if gvk := gvkOf(res); fw.table == nil && fw.meta == nil && prefersProtobuf(r, gvk) {
		fw.pb = &gvk
	}
	return fw
}

// begin sends the header of a watch answer: 200, JSON or protobuf's
// watch stream, chunked.
func (fw *frameWriter) begin() {
	h := fw.w.Header()
	if fw.pb != nil {
		h.Set("Content-Type", mediaProtobuf+";stream=watch")
	} else {
		h.Set("Content-Type", "application/json")
	}
	h.Set("Cache-Control", "no-cache, private")
	h.Set("Transfer-Encoding", "chunked")
	fw.w.WriteHeader(http.StatusOK)
	fw.flush()
}

func (fw *frameWriter) flush() {
	fw.held = 0
	if fw.f != nil {
		fw.f.Flush()
	}
}

// frame writes one event; obj is the event object's JSON. After a failed
// write (the client is gone) every later call fails at once.
func (fw *frameWriter) frame(typ history.EventType, obj []byte) error {
	if fw.err != nil {
		return fw.err
	}
	if err := fw.encode(typ, obj); err != nil {
		fw.err = err
		return err
	}
	return fw.write()
}

// holdBytes is how much a held stream writes between flushes.
const holdBytes = 64 << 10

// write sends the frame in fw.buf.
func (fw *frameWriter) write() error {
	if _, err := fw.w.Write(fw.buf.Bytes()); err != nil {
		fw.err = err
		return err
	}
	if fw.held += fw.buf.Len(); !fw.hold || fw.held >= holdBytes {
		fw.flush()
	}
	return nil
}

// holding makes writes flush only every holdBytes while on, and flushes
// what is held when turned off.
func (fw *frameWriter) holding(on bool) {
	fw.hold = on
	if !on && fw.held > 0 {
		fw.flush()
	}
}

// objectFrame writes one event whose object is o with kind and
// apiVersion, as frame(typ, o.WithKind(kind, apiVersion)) does, but
// rendering the object straight into the frame.
func (fw *frameWriter) objectFrame(typ history.EventType, o *history.Object, kind, apiVersion string) error {
	if fw.pb != nil {
		return fw.objectFrameProtobuf(typ, o, kind)
	}
	if fw.table != nil || fw.meta != nil || bytes.IndexByte(o.Raw, '\n') >= 0 {
		return fw.frame(typ, o.WithKind(kind, apiVersion))
	}
	if fw.err != nil {
		return fw.err
	}
	fw.buf.Reset()
	fw.buf.WriteString(`{"type":"` + string(typ) + `","object":`)
	fw.buf.Write(o.AppendWithKind(fw.buf.AvailableBuffer(), kind, apiVersion))
	fw.buf.WriteString("}\n")
	return fw.write()
}

// encode renders one event frame into fw.buf. Only a protobuf frame can
// fail (an object that does not decode as its kind).
func (fw *frameWriter) encode(typ history.EventType, obj []byte) error {
	if fw.pb != nil {
		return fw.encodeProtobuf(typ, obj)
	}
	if fw.table != nil {
		obj = fw.table.Event(typ, obj)
	}
	if fw.meta != nil {
		obj = fw.meta.event(typ, obj)
	}
	fw.buf.Reset()
	fw.buf.WriteString(`{"type":`)
	fw.buf.WriteString(`"` + string(typ) + `"`)
	fw.buf.WriteString(`,"object":`)
	if bytes.IndexByte(obj, '\n') >= 0 {
		// A frame is one line: compact objects recorded pretty-printed.
		if err := json.Compact(&fw.buf, obj); err != nil {
			fw.buf.Write(obj)
		}
	} else {
		fw.buf.Write(obj)
	}
	fw.buf.WriteString("}\n")
	return nil
}

// errorFrame writes an ERROR event carrying st.
func (fw *frameWriter) errorFrame(st metav1.Status) error {
	return fw.frame(history.Error, status.JSON(st))
}

// bookmarkObject renders the object of a BOOKMARK event as kube-apiserver
// encodes it. It is an empty object of the resource's kind carrying only
// rv. The bookmark that ends a WatchList's initial events also carries the
// k8s.io/initial-events-end annotation. Built-in kinds are encoded from
// their Go types. So a Pod bookmark carries "spec":{"containers":null}, as
// a real one does. Other kinds (custom resources) are encoded as
// unstructured objects.
func bookmarkObject(res history.Resource, rv string, initialEnd bool) []byte {
	gvk := schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind}
	var ann map[string]string
	if initialEnd {
		ann = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	if obj, err := builtin.Scheme.New(gvk); err == nil {
		if m, ok := obj.(metav1.Object); ok {
			obj.GetObjectKind().SetGroupVersionKind(gvk)
			m.SetResourceVersion(rv)
			m.SetAnnotations(ann)
			if b, err := json.Marshal(obj); err == nil {
				return b
			}
		}
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetResourceVersion(rv)
	if ann != nil {
		u.SetAnnotations(ann)
	}
	b, err := u.MarshalJSON()
	if err != nil { // a map of strings always marshals; keep a valid frame regardless
		return []byte(`{"kind":` + jsonQuote(res.Kind) + `,"apiVersion":` + jsonQuote(res.GroupVersion()) +
			`,"metadata":{"resourceVersion":` + jsonQuote(rv) + `}}`)
	}
	return bytes.TrimSpace(b)
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// eventFrame returns what a watch with filter f sends for event e, as the
// cacher converts it (see eventObject). It returns the object's JSON as
// the frame carries it.
func eventFrame(e history.Event, f filter, kind, apiVersion string) (typ history.EventType, obj []byte, ok bool) {
	typ, o, ok := eventObject(e, f)
	if !ok {
		return "", nil, false
	}
	return typ, withKind(o, kind, apiVersion), true
}

// eventObject returns what a watch with filter f sends for event e, as the
// cacher converts it. It is ADDED when the object enters the selection,
// MODIFIED while it stays in. It is DELETED when it leaves or is deleted:
// the previous object at the event's resourceVersion. Its ok is false
// when the object is out of the selection before and after.
func eventObject(e history.Event, f filter) (typ history.EventType, obj *history.Object, ok bool) {
	prev := e.Prev
	if prev == nil && e.Type == history.Deleted {
		prev = e.Object
	}
	cur := e.Type != history.Deleted && f.match(e.Object)
	old := f.match(prev)
	switch {
	case cur && !old:
		return history.Added, e.Object, true
	case cur && old:
		return history.Modified, e.Object, true
	case !cur && old:
		if e.Type == history.Deleted {
			// the recorded DELETED object is already the last state at
			// the deletion's resourceVersion
			return history.Deleted, e.Object, true
		}
		return history.Deleted, withRV(prev, e.RV()), true
	}
	return "", nil, false
}

// withRV returns o at resourceVersion rv, its JSON otherwise unchanged.
// The value of metadata.resourceVersion is replaced where it stands. So
// fields keep the order kube-apiserver encodes them in.
func withRV(o *history.Object, rv string) *history.Object {
	from, to, ok := metadataRVSpan(o.Raw)
	if !ok {
		c, err := history.WithResourceVersion(o, rv)
		if err != nil {
			return o
		}
		return c
	}
	c := *o
	c.ResourceVersion = rv
	c.Raw = make([]byte, 0, len(o.Raw)+len(rv))
	c.Raw = append(c.Raw, o.Raw[:from]...)
	c.Raw = append(c.Raw, jsonQuote(rv)...)
	c.Raw = append(c.Raw, o.Raw[to:]...)
	return &c
}

// metadataRVSpan finds the value of metadata.resourceVersion in an
// object's JSON: raw[from:to] is the quoted string.
func metadataRVSpan(raw []byte) (from, to int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, false
	}
	inMeta := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		key, _ := t.(string)
		switch {
		case !inMeta && key == "metadata":
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return 0, 0, false
			}
			inMeta = true
			continue
		case inMeta && key == "resourceVersion":
			keyEnd := int(dec.InputOffset())
			var v string
			if err := dec.Decode(&v); err != nil {
				return 0, 0, false
			}
			to = int(dec.InputOffset())
			from = keyEnd + bytes.IndexByte(raw[keyEnd:to], '"')
			return from, to, from >= keyEnd
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 0, 0, false
		}
	}
	return 0, 0, false
}
