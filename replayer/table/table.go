// Package table renders objects as the meta.k8s.io Tables kube-apiserver
// answers for server-side printing. kubectl's Accept header puts
// application/json;as=Table;v=v1;g=meta.k8s.io first. kube-apiserver then
// answers a LIST, a GET or each WATCH event's object with a Table. Its
// rows carry the object's cells. Per includeObject, they also carry the
// object itself, its metadata (the default) or nothing (k8s.io/apiserver
// pkg/endpoints/handlers/response.go: asTable and watchEmbeddedEncoder).
//
// The columns and cells come from a Convertor. It is either the printer
// columns of a custom resource's CustomResourceDefinition (ForCRD,
// crd.go), or kube-apiserver's default convertor: Name and Created At
// (Default, default.go). Built-in kinds get the default columns.
// kube-apiserver's per-kind printers live in k8s.io/kubernetes, which no
// module can import.
//
// It knows nothing of HTTP serving or of a history's states. The
// replayer's Server finds what a request asks (Accept, ParseOptions) and
// the convertor of its resource, and writes what a View renders.
//
// Typical use:
//
//	apiVersion, ok := table.Accept(r.Header.Get("Accept"))
//	include, err := table.ParseOptions(r.URL.Query())
//	v := table.NewView(apiVersion, include, table.Default())
//	body, err := v.Render(objects, metav1.ListMeta{ResourceVersion: rv}, true)
package table

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/munnerz/goautoneg"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1beta1/validation"

	"github.com/lwreplay/lwreplay/history"
)

// Accept reads an Accept header as kube-apiserver's
// NegotiateMediaTypeOptions does (goautoneg's order: by quality, then
// specificity). The first clause the replayer can answer may ask for a
// Table in meta.k8s.io v1 or v1beta1. Then Accept returns the Table
// apiVersion asked. Clauses it cannot answer (YAML, protobuf, other
// conversions) are skipped. A plain JSON clause first means no Table.
func Accept(accept string) (apiVersion string, ok bool) {
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

// ParseOptions reads the Table options of a request's query and validates
// them as kube-apiserver's optionsForTransform does, returning what each
// row carries (includeObject). The error's message is that of the 400
// BadRequest kube-apiserver answers for invalid options.
func ParseOptions(query url.Values) (metav1.IncludeObjectPolicy, error) {
	opts := &metav1.TableOptions{}
	if err := scheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion, opts); err != nil {
		return "", err
	}
	switch errs := validation.ValidateTableOptions(opts); len(errs) {
	case 0:
		return opts.IncludeObject, nil
	case 1:
		return "", fmt.Errorf("Unable to convert to Table as requested: %v", errs[0].Error())
	default:
		return "", fmt.Errorf("Unable to convert to Table as requested: %v", errs)
	}
}

// Convertor gives a resource's Table columns and the cells of an object's
// row, as a kube-apiserver TableConvertor does.
type Convertor interface {
	// Columns returns the column definitions.
	Columns() []metav1.TableColumnDefinition
	// Cells returns the row cells of the object raw (its JSON) with
	// metadata m.
	Cells(m *metav1.ObjectMeta, raw []byte) []any
	// EmptyRows is the rows of a Table of no object: nil or empty, as the
	// convertor it mirrors leaves them.
	EmptyRows() []metav1.TableRow
}

// View is how a request asked for a Table: its apiVersion, what each row
// carries and the convertor of its resource. A View renders the answers
// to one request. A watch's View sends the column definitions with its
// first event only, so it is not safe for concurrent use.
type View struct {
	apiVersion string
	include    metav1.IncludeObjectPolicy
	conv       Convertor
	// noHeaders is set once a watch stream has sent its first event: the
	// later ones carry no column definitions.
	noHeaders bool
}

// NewView returns the view of a Table in apiVersion (meta.k8s.io/v1 or
// meta.k8s.io/v1beta1) whose rows carry what include says ("" means
// Metadata) and whose columns conv gives.
func NewView(apiVersion string, include metav1.IncludeObjectPolicy, conv Convertor) *View {
	return &View{apiVersion: apiVersion, include: include, conv: conv}
}

// APIVersion returns the Table's apiVersion.
func (v *View) APIVersion() string { return v.apiVersion }

// Include returns what each row carries, as the request said it ("" for
// the default, Metadata).
func (v *View) Include() metav1.IncludeObjectPolicy { return v.include }

// rowMeta decodes an object's metadata.
func rowMeta(raw []byte) (*metav1.ObjectMeta, error) {
	var o struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("table row: object metadata: %w", err)
	}
	return &o.Metadata, nil
}

// Render returns the Table of objs (each an object's JSON with kind and
// apiVersion) with list metadata lm. It has the column definitions only
// while headers are wanted. Each row's object is per includeObject
// (asTable). The initial-events-end bookmark always keeps its metadata,
// so its annotation reaches the client.
func (v *View) Render(objs [][]byte, lm metav1.ListMeta, headers bool) ([]byte, error) {
	t := metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: v.apiVersion},
		ListMeta: lm,
		Rows:     v.conv.EmptyRows(),
	}
	if headers {
		t.ColumnDefinitions = v.conv.Columns()
	}
	for _, raw := range objs {
		m, err := rowMeta(raw)
		if err != nil {
			return nil, err
		}
		row := metav1.TableRow{Cells: v.conv.Cells(m, raw)}
		switch {
		case v.include == metav1.IncludeObject:
			row.Object.Raw = raw
		case v.include == metav1.IncludeNone && m.Annotations[metav1.InitialEventsAnnotationKey] != "true":
		default:
			pm := metav1.PartialObjectMetadata{
				TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: v.apiVersion},
				ObjectMeta: *m,
			}
			if row.Object.Raw, err = json.Marshal(pm); err != nil {
				return nil, fmt.Errorf("table row %s: metadata: %w", m.Name, err)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	return b, nil
}

// Event renders a watch event's object as the Table of one row, with the
// object's resourceVersion. The first event of a stream carries the
// column definitions, later ones none (watchEmbeddedEncoder). A Status
// (an ERROR event's object), and what is not an object, is sent as it is.
func (v *View) Event(typ history.EventType, obj []byte) []byte {
	headers := !v.noHeaders
	v.noHeaders = true
	if typ == history.Error {
		return obj
	}
	m, err := rowMeta(obj)
	if err != nil {
		return obj // not an object: kube-apiserver sends what it cannot transform as it is
	}
	b, err := v.Render([][]byte{obj}, metav1.ListMeta{ResourceVersion: m.ResourceVersion}, headers)
	if err != nil {
		return obj
	}
	return b
}
