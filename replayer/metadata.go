package replayer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/munnerz/goautoneg"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"

	"github.com/lwreplay/lwreplay/history"
)

// Metadata-only answers. client-go's metadata client (and so the
// metadatainformer and controller-runtime's OnlyMetadata) asks
// application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1 for a
// LIST. It asks as=PartialObjectMetadata for a GET or a WATCH.
// kube-apiserver answers as follows (k8s.io/apiserver
// pkg/endpoints/handlers/response.go, doTransformObject,
// asPartialObjectMetadata, asPartialObjectMetadataList):
//   - a LIST: a PartialObjectMetadataList. Its list metadata is the
//     list's (resourceVersion, continue, remainingItemCount). Its items
//     carry each object's ObjectMeta whole;
//   - a GET: a PartialObjectMetadata;
//   - a WATCH: events whose objects (the bookmarks' too) are
//     PartialObjectMetadata.
//
// The replayer copies an object's "metadata" field as recorded, without
// decoding it.

// Kinds a request may ask its answer as.
const (
	partialKind     = "PartialObjectMetadata"
	partialListKind = "PartialObjectMetadataList"
)

// metaView is how a request asked for metadata only: the kind
// (PartialObjectMetadata or PartialObjectMetadataList) and its apiVersion
// (meta.k8s.io/v1 or meta.k8s.io/v1beta1).
type metaView struct {
	kind, apiVersion string
}

type metaKey struct{}

// withMetadata returns r carrying mv, for the answer to read (metadataOf).
func withMetadata(r *http.Request, mv *metaView) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), metaKey{}, mv))
}

// metadataOf returns the metadata-only answer r asked for; nil when it
// asked for none.
func metadataOf(r *http.Request) *metaView {
	mv, _ := r.Context().Value(metaKey{}).(*metaView)
	return mv
}

// metadataAccept reads an Accept header as kube-apiserver's
// NegotiateMediaTypeOptions does (pkg/endpoints/handlers/negotiation/
// negotiate.go). The first clause, in goautoneg's order, that the
// replayer can answer picks the answer. A clause can be answered when it
// is JSON (the replayer's only encoding; protobuf and YAML clauses are
// skipped). It must ask no conversion, a Table, or a PartialObjectMetadata
// or PartialObjectMetadataList in meta.k8s.io v1 or v1beta1
// (RequestScope.AllowsMediaTypeTransform, pkg/endpoints/handlers/
// rest.go). A clause asking any other as= is skipped.
//
// It returns the metadata view when that first clause asks one. It
// returns none when it asks no conversion or a Table (tableFor's). The
// result unacceptable is true when the header asks conversions only and
// none can be answered: kube-apiserver's 406 (NegotiateOutputMediaType).
func metadataAccept(accept string) (mv *metaView, unacceptable bool) {
	if !strings.Contains(accept, "as=") {
		return nil, false // most requests: no need to parse
	}
	sawJSON := false
	for _, c := range goautoneg.ParseAccept(accept) {
		if !(c.Type == "application" && (c.SubType == "json" || c.SubType == "*")) && !(c.Type == "*" && c.SubType == "*") {
			continue
		}
		sawJSON = true
		as, g, v := c.Params["as"], c.Params["g"], c.Params["v"]
		if as == "" && g == "" && v == "" {
			return nil, false
		}
		if g != metav1.GroupName || (v != metav1.SchemeGroupVersion.Version && v != metav1beta1.SchemeGroupVersion.Version) {
			continue
		}
		switch as {
		case "Table":
			return nil, false
		case partialKind, partialListKind:
			return &metaView{kind: as, apiVersion: metav1.GroupName + "/" + v}, false
		}
	}
	return nil, sawJSON // a header with no JSON clause is serve*'s 406 (acceptable)
}

// metadataFor returns the metadata-only answer r asks for, or nil when it
// asks for none. When r accepts only conversions kube-apiserver does not
// make, it returns the 406 kube-apiserver answers.
func metadataFor(r *http.Request) (*metaView, *metav1.Status) {
	mv, unacceptable := metadataAccept(r.Header.Get("Accept"))
	if unacceptable {
		st := notAcceptable()
		return nil, &st
	}
	return mv, nil
}

// internalType names the Go type kube-apiserver's asPartialObjectMetadata*
// messages print (%T) for res's objects. It is an internal type for a
// built-in group, unstructured for other groups (custom resources). It is
// a guess from the group's name.
func internalType(res history.Resource, list bool) string {
	suffix := ""
	if list {
		suffix = "List"
	}
	pkg := "core"
	if res.Group != "" {
		if strings.Contains(res.Group, ".") && !strings.HasSuffix(res.Group, ".k8s.io") {
			return "*unstructured.Unstructured" + suffix
		}
		pkg, _, _ = strings.Cut(res.Group, ".")
	}
	return "*" + pkg + "." + res.Kind + suffix
}

// listStatus returns the 406 kube-apiserver answers a LIST asked as a
// PartialObjectMetadata (asPartialObjectMetadata); nil when mv asks a
// list.
func (mv *metaView) listStatus(res history.Resource) *metav1.Status {
	if mv.kind == partialListKind {
		return nil
	}
	st := notAcceptableMessage(fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%s)", internalType(res, true)))
	return &st
}

// getStatus returns the 406 kube-apiserver answers a GET asked as a
// PartialObjectMetadataList (asPartialObjectMetadataList); nil when mv
// asks one object.
func (mv *metaView) getStatus(res history.Resource) *metav1.Status {
	if mv.kind == partialKind {
		return nil
	}
	st := notAcceptableMessage(fmt.Sprintf("you requested PartialObjectMetadataList, but the requested object is not a list (%s)", internalType(res, false)))
	return &st
}

func notAcceptableMessage(msg string) metav1.Status {
	st := notAcceptable()
	st.Message = msg
	return st
}

// objectMetadata returns the "metadata" field of object raw as it is ({}
// when it has none). It reads no further than it: kube-apiserver encodes
// metadata right after kind and apiVersion.
func objectMetadata(raw []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil {
		return nil, err
	} else if t != json.Delim('{') {
		return nil, fmt.Errorf("object: got %v, want {", t)
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		if t == "metadata" {
			return v, nil
		}
	}
	if _, err := d.Token(); err != nil && err != io.EOF {
		return nil, err
	}
	return []byte("{}"), nil
}

// appendPartial appends the PartialObjectMetadata of object raw in
// apiVersion.
func appendPartial(dst []byte, raw []byte, apiVersion string) ([]byte, error) {
	m, err := objectMetadata(raw)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `{"kind":"`+partialKind+`","apiVersion":"`+apiVersion+`","metadata":`...)
	dst = append(dst, m...)
	return append(dst, '}'), nil
}

// list renders page p of res's state at rv as a PartialObjectMetadataList
// (asPartialObjectMetadataList). It holds the list's resourceVersion,
// continue and remainingItemCount, and its items' metadata. Items are null
// when there are none, as the Go list's nil Items encode.
func (mv *metaView) list(rv string, p page) ([]byte, error) {
	lm := metav1.ListMeta{ResourceVersion: rv, RemainingItemCount: p.remaining}
	if p.next != "" {
		lm.Continue = continueToken{rv: rv, start: p.next}.encode()
	}
	lmJSON, err := json.Marshal(lm)
	if err != nil {
		return nil, err
	}
	size := 128 + len(lmJSON)
	for _, o := range p.items {
		size += len(o.Raw)/4 + 64
	}
	b := make([]byte, 0, size)
	b = append(b, `{"kind":"`+partialListKind+`","apiVersion":"`+mv.apiVersion+`","metadata":`...)
	b = append(b, lmJSON...)
	if len(p.items) == 0 {
		return append(b, `,"items":null}`...), nil
	}
	b = append(b, `,"items":[`...)
	for i, o := range p.items {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendPartial(b, o.Raw, mv.apiVersion); err != nil {
			return nil, fmt.Errorf("%s: %w", o.Key(), err)
		}
	}
	return append(b, "]}"...), nil
}

// object renders object raw as a PartialObjectMetadata.
func (mv *metaView) object(raw []byte) ([]byte, error) {
	return appendPartial(nil, raw, mv.apiVersion)
}

// event returns the object of a watch event as kube-apiserver's
// watchEmbeddedEncoder sends it. It is a PartialObjectMetadata when the
// watch asked one. It is the object as it is for an ERROR's Status, and
// for what is not an object. So it is for a watch asking a
// PartialObjectMetadataList: the transform fails and kube-apiserver sends
// the object untransformed.
func (mv *metaView) event(typ history.EventType, obj []byte) []byte {
	if typ == history.Error || mv.kind != partialKind {
		return obj
	}
	b, err := mv.object(obj)
	if err != nil {
		return obj
	}
	return b
}
