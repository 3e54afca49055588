package replayer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/munnerz/goautoneg"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1beta1/validation"

	"github.com/lwreplay/lwreplay/history"
)

// Table answers. kubectl asks for server-side printing: its Accept header
// puts application/json;as=Table;v=v1;g=meta.k8s.io first, and
// kube-apiserver answers a LIST, a GET or each WATCH event's object with a
// meta.k8s.io Table whose rows carry the object's cells and, per
// includeObject, the object itself, its metadata (the default) or nothing.
// The replayer answers the same way (k8s.io/apiserver
// pkg/endpoints/handlers/response.go: asTable and watchEmbeddedEncoder),
// with the columns of, in this order: a recorded Table answer to the same
// page (history.History.Tables); the printer columns of a custom
// resource's CustomResourceDefinition when the history holds it
// (table_crd.go); otherwise kube-apiserver's default convertor, Name and
// Created At (table_default.go). Built-in kinds get the default columns:
// kube-apiserver's per-kind printers live in k8s.io/kubernetes, which no
// module can import.

// tableView is how a request asked for a Table, and the convertor that
// answers it.
type tableView struct {
	// apiVersion is the Table's: meta.k8s.io/v1 or meta.k8s.io/v1beta1.
	apiVersion string
	// include says what each row carries: the object, its metadata ("" or
	// Metadata) or nothing.
	include metav1.IncludeObjectPolicy
	conv    tableConvertor
	// recorded holds the recorded Table answers to the request's resource
	// in the Table's apiVersion, for a LIST to serve as recorded.
	recorded []history.RecordedTable
	// noHeaders is set once a watch stream has sent its first event: the
	// later ones carry no column definitions.
	noHeaders bool
}

type tableKey struct{}

// withTable returns r carrying tv, for the answer to read (tableOf).
func withTable(r *http.Request, tv *tableView) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), tableKey{}, tv))
}

// tableOf returns the Table r asked for; nil when it asked for none.
func tableOf(r *http.Request) *tableView {
	tv, _ := r.Context().Value(tableKey{}).(*tableView)
	return tv
}

// tableAccept reads an Accept header as kube-apiserver's
// NegotiateMediaTypeOptions does (goautoneg's order: by quality, then
// specificity) and returns the Table apiVersion asked when the first
// clause the replayer can answer asks for a Table in meta.k8s.io v1 or
// v1beta1. Clauses it cannot answer (YAML, protobuf, other conversions)
// are skipped; a plain JSON clause first means no Table.
func tableAccept(accept string) (apiVersion string, ok bool) {
	if !strings.Contains(accept, "Table") {
		return "", false // most requests: no need to parse
	}
	for _, c := range goautoneg.ParseAccept(accept) {
		if !(c.Type == "application" && (c.SubType == "json" || c.SubType == "*")) && !(c.Type == "*" && c.SubType == "*") {
			continue
		}
		switch as := c.Params["as"]; {
		case as == "":
			return "", false
		case as == "Table" && c.Params["g"] == metav1.GroupName &&
			(c.Params["v"] == metav1.SchemeGroupVersion.Version || c.Params["v"] == metav1beta1.SchemeGroupVersion.Version):
			return metav1.GroupName + "/" + c.Params["v"], true
		}
	}
	return "", false
}

// tableFor returns the Table the request asks for of l's resource, nil
// when it asks for none, or the 400 kube-apiserver answers for invalid
// Table options (optionsForTransform).
func (s *Server) tableFor(r *http.Request, l *history.Log) (*tableView, *metav1.Status) {
	apiVersion, ok := tableAccept(r.Header.Get("Accept"))
	if !ok {
		return nil, nil
	}
	opts := &metav1.TableOptions{}
	if err := scheme.ParameterCodec.DecodeParameters(r.URL.Query(), metav1.SchemeGroupVersion, opts); err != nil {
		st := badRequest(err.Error())
		return nil, &st
	}
	switch errs := validation.ValidateTableOptions(opts); len(errs) {
	case 0:
	case 1:
		st := badRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", errs[0].Error()))
		return nil, &st
	default:
		st := badRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", errs))
		return nil, &st
	}
	tv := &tableView{apiVersion: apiVersion, include: opts.IncludeObject, conv: s.convertorFor(l.Resource)}
	if s.served() == s.h { // a plan that rewrites the history makes recorded answers untrue
		for _, t := range s.h.Tables {
			if t.Request.Resource.ID() == l.Resource.ID() && t.APIVersion == apiVersion {
				tv.recorded = append(tv.recorded, t)
			}
		}
	}
	return tv, nil
}

// tableConvertor gives a resource's Table columns and the cells of an
// object's row, as a kube-apiserver TableConvertor does.
type tableConvertor interface {
	// columns returns the column definitions.
	columns() []metav1.TableColumnDefinition
	// cells returns the row cells of the object raw (its JSON) with
	// metadata m.
	cells(m *metav1.ObjectMeta, raw []byte) []any
	// emptyRows is the rows of a Table of no object: nil or empty, as the
	// convertor it mirrors leaves them.
	emptyRows() []metav1.TableRow
}

// tableObject is an object a Table row shows: its JSON with kind and
// apiVersion.
type tableObject []byte

// rowMeta decodes an object's metadata.
func rowMeta(raw []byte) (*metav1.ObjectMeta, error) {
	var o struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, err
	}
	return &o.Metadata, nil
}

// render returns the Table of objs with list metadata lm, the column
// definitions only while headers are wanted, each row's object per
// includeObject (asTable): the initial-events-end bookmark always keeps its
// metadata, so that its annotation reaches the client.
func (tv *tableView) render(objs []tableObject, lm metav1.ListMeta, headers bool) ([]byte, error) {
	t := metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: tv.apiVersion},
		ListMeta: lm,
		Rows:     tv.conv.emptyRows(),
	}
	if headers {
		t.ColumnDefinitions = tv.conv.columns()
	}
	for _, raw := range objs {
		m, err := rowMeta(raw)
		if err != nil {
			return nil, err
		}
		row := metav1.TableRow{Cells: tv.conv.cells(m, raw)}
		switch {
		case tv.include == metav1.IncludeObject:
			row.Object.Raw = raw
		case tv.include == metav1.IncludeNone && m.Annotations[metav1.InitialEventsAnnotationKey] != "true":
		default:
			pm := metav1.PartialObjectMetadata{
				TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: tv.apiVersion},
				ObjectMeta: *m,
			}
			if row.Object.Raw, err = json.Marshal(pm); err != nil {
				return nil, err
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return json.Marshal(t)
}

// event renders a watch event's object as the Table of one row, with the
// object's resourceVersion; the first event of a stream carries the
// column definitions, later ones none (watchEmbeddedEncoder). A Status
// (an ERROR event's object) is sent as it is.
func (tv *tableView) event(typ history.EventType, obj []byte) []byte {
	headers := !tv.noHeaders
	tv.noHeaders = true
	if typ == history.Error {
		return obj
	}
	m, err := rowMeta(obj)
	if err != nil {
		return obj // not an object: kube-apiserver sends what it cannot transform as it is
	}
	b, err := tv.render([]tableObject{obj}, metav1.ListMeta{ResourceVersion: m.ResourceVersion}, headers)
	if err != nil {
		return obj
	}
	return b
}
