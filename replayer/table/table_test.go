package table

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/history"
)

// kubectlAccept is the Accept header of kubectl get (1.27 to 1.33), which
// prints on the server's side.
const kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

func TestAccept(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		accept string
		want   string // "" for no Table
	}{
		{name: "accept - kubectl's - pass", accept: kubectlAccept, want: "meta.k8s.io/v1"},
		{name: "accept - v1beta1 first - pass", accept: "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", want: "meta.k8s.io/v1beta1"},
		{name: "accept - Table at a lower quality - pass", accept: "application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5,application/json"},
		{name: "accept - any type as Table - pass", accept: "*/*;as=Table;v=v1;g=meta.k8s.io", want: "meta.k8s.io/v1"},
		{name: "accept - Table of an unknown version, then JSON - pass", accept: "application/json;as=Table;v=v2;g=meta.k8s.io,application/json"},
		{name: "accept - YAML Table, then JSON Table - pass", accept: "application/yaml;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io", want: "meta.k8s.io/v1beta1"},
		{name: "accept - metadata only, then Table - pass", accept: "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io", want: "meta.k8s.io/v1"},
		{name: "accept - plain JSON - pass", accept: "application/json"},
		{name: "accept - empty - pass", accept: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Accept(tt.accept)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("got %q, %v; want %q, %v", got, ok, tt.want, tt.want != "")
			}
		})
	}
}

func TestParseOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		query   string
		want    metav1.IncludeObjectPolicy
		wantErr string // a part of the error; "" for none
	}{
		{name: "options - none - the default - pass", query: ""},
		{name: "options - includeObject=Object - pass", query: "includeObject=Object", want: metav1.IncludeObject},
		{name: "options - includeObject=None - pass", query: "includeObject=None", want: metav1.IncludeNone},
		{name: "options - includeObject unknown - kube-apiserver's 400 message - fail", query: "includeObject=Everything",
			wantErr: "Unable to convert to Table as requested: includeObject"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatalf("query %q: %v", tt.query, err)
			}
			got, err := ParseOptions(q)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("got error %v, want none", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("got error %v, want one holding %q", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// widgetCRD defines widgets with a Size column in v1 and none in v2.
const widgetCRD = `{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1","metadata":{"name":"widgets.example.com"},` +
	`"spec":{"versions":[{"name":"v1","additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size"}]},{"name":"v2"}]}}`

// widget is a v1 widget of size 3.
const widget = `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w1","namespace":"ns1","resourceVersion":"7","creationTimestamp":"1999-12-30T00:00:00Z"},"spec":{"size":3}}`

// columnNames returns the names of conv's columns.
func columnNames(conv Convertor) []string {
	var out []string
	for _, c := range conv.Columns() {
		out = append(out, c.Name)
	}
	return out
}

func TestForCRD(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		crd     string
		version string
		want    []string
	}{
		{name: "crd - version with printer columns - Name then them - pass", crd: widgetCRD, version: "v1", want: []string{"Name", "Size"}},
		{name: "crd - version with none - Name and Age - pass", crd: widgetCRD, version: "v2", want: []string{"Name", "Age"}},
		{name: "crd - version it does not define - the default columns - fail", crd: widgetCRD, version: "v9", want: []string{"Name", "Created At"}},
		{name: "crd - not JSON - the default columns - fail", crd: "{", version: "v1", want: []string{"Name", "Created At"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := columnNames(ForCRD([]byte(tt.crd), tt.version)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got columns %q, want %q", got, tt.want)
			}
		})
	}
}

func TestViewEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		include metav1.IncludeObjectPolicy
		events  []history.EventType
		want    []string // a part of each rendered event
	}{
		{name: "event - first carries the columns, the next none - pass", events: []history.EventType{history.Added, history.Modified},
			want: []string{`"columnDefinitions":[{"name":"Name"`, `"columnDefinitions":null`}},
		{name: "event - the row's metadata by default - pass", events: []history.EventType{history.Added},
			want: []string{`"cells":["w1",3],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1"`}},
		{name: "event - includeObject=None - no object - pass", include: metav1.IncludeNone, events: []history.EventType{history.Added},
			want: []string{`"cells":["w1",3],"object":null}`}},
		{name: "event - an ERROR's object - sent as it is - pass", events: []history.EventType{history.Error}, want: []string{widget}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewView("meta.k8s.io/v1", tt.include, ForCRD([]byte(widgetCRD), "v1"))
			for i, typ := range tt.events {
				if got := string(v.Event(typ, []byte(widget))); !strings.Contains(got, tt.want[i]) {
					t.Errorf("event %d: got %s, want it to hold %s", i, got, tt.want[i])
				}
			}
		})
	}
}
