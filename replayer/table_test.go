package replayer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// kubectlAccept is the Accept header of kubectl get (1.27 to 1.33), which
// prints on the server's side.
const kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// tableEpoch is when the tables' objects were created: the clock of a
// testing/synctest bubble starts at 2000-01-01 00:00 UTC, so ages are
// known.
var tableEpoch = time.Date(1999, 12, 30, 0, 0, 0, 0, time.UTC)

func unstructuredObj(apiVersion, kind, ns, name string, created time.Time, fields map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	for k, v := range fields {
		u.Object[k] = v
	}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetCreationTimestamp(metav1.NewTime(created))
	return u
}

// tableHistory holds:
//   - configmaps ns1/a, ns1/b, ns2/c; then a is updated and c deleted;
//   - the CustomResourceDefinition of widgets.example.com: v1 with printer
//     columns, v2 with none, v3 with an unparsable JSONPath in its second
//     column;
//   - one widget in each version;
//   - gadgets.example.com, whose definition the history does not hold.
func tableHistory(t testing.TB) *history.History {
	t.Helper()
	b := synth.NewBuilder()
	cm := func(ns, name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(tableEpoch)}}
	}
	a, c := cm("ns1", "a"), cm("ns2", "c")
	for _, o := range []*corev1.ConfigMap{a, cm("ns1", "b"), c} {
		b.Add(o)
	}
	col := func(name, typ, path string, extra ...any) map[string]any {
		m := map[string]any{"name": name, "type": typ, "jsonPath": path}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		return m
	}
	b.Add(unstructuredObj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "widgets.example.com", tableEpoch, map[string]any{
		"spec": map[string]any{"group": "example.com", "versions": []any{
			map[string]any{"name": "v1", "additionalPrinterColumns": []any{
				col("Size", "integer", ".spec.size"),
				col("Color", "string", ".spec.color", "description", "the color"),
				col("Ready", "boolean", ".status.ready", "priority", int64(1)),
				col("When", "date", ".spec.when"),
				col("Ratio", "number", ".spec.ratio"),
				col("Tags", "string", ".spec.tags"),
				col("Missing", "integer", ".spec.nope"),
			}},
			map[string]any{"name": "v2"},
			map[string]any{"name": "v3", "additionalPrinterColumns": []any{
				col("First", "string", ".spec.color"),
				col("Broken", "string", ".spec[[["),
				col("After", "string", ".spec.color"),
			}},
		}},
	}))
	spec := map[string]any{"spec": map[string]any{"size": int64(3), "color": "red", "when": "1999-12-31T00:00:00Z", "ratio": 0.5, "tags": []any{"x", "y"}},
		"status": map[string]any{"ready": true}}
	b.Add(unstructuredObj("example.com/v1", "Widget", "ns1", "w1", tableEpoch, spec))
	b.Add(unstructuredObj("example.com/v2", "Widget", "ns1", "w1", tableEpoch, spec))
	b.Add(unstructuredObj("example.com/v3", "Widget", "ns1", "w1", tableEpoch, spec))
	b.Add(unstructuredObj("example.com/v1", "Gadget", "ns1", "g1", tableEpoch, nil))
	b.Snapshot()
	b.Update(a)
	b.Delete(c)
	h, err := b.History()
	if err != nil {
		t.Fatalf("table history: %v", err)
	}
	return h
}

// tableAnswer is a Table answer, decoded, with each row told in one
// string: its cells (JSON) and what object it carries.
type tableAnswer struct {
	kind, apiVersion, rv, cont string
	remaining                  *int64
	columns                    []string // "Name string name", ...
	rows                       []string
	raw                        string
}

func decodeTable(t *testing.T, body []byte) tableAnswer {
	t.Helper()
	var tbl struct {
		Kind       string                         `json:"kind"`
		APIVersion string                         `json:"apiVersion"`
		Metadata   metav1.ListMeta                `json:"metadata"`
		Columns    []metav1.TableColumnDefinition `json:"columnDefinitions"`
		Rows       []struct {
			Cells  json.RawMessage `json:"cells"`
			Object json.RawMessage `json:"object"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(body, &tbl); err != nil {
		t.Fatalf("got body %s, want JSON: %v", body, err)
	}
	a := tableAnswer{kind: tbl.Kind, apiVersion: tbl.APIVersion, rv: tbl.Metadata.ResourceVersion, cont: tbl.Metadata.Continue,
		remaining: tbl.Metadata.RemainingItemCount, raw: string(body)}
	for _, c := range tbl.Columns {
		a.columns = append(a.columns, strings.Join(strings.Fields(fmt.Sprintf("%s %s %s %d", c.Name, c.Type, c.Format, c.Priority)), " "))
	}
	for _, r := range tbl.Rows {
		obj := "null"
		if string(r.Object) != "null" {
			var o struct {
				Kind       string            `json:"kind"`
				APIVersion string            `json:"apiVersion"`
				Metadata   metav1.ObjectMeta `json:"metadata"`
			}
			if err := json.Unmarshal(r.Object, &o); err != nil {
				t.Fatalf("row object %s: %v", r.Object, err)
			}
			obj = fmt.Sprintf("%s %s %s/%s@%s", o.APIVersion, o.Kind, o.Metadata.Namespace, o.Metadata.Name, o.Metadata.ResourceVersion)
			if v := o.Metadata.Annotations[metav1.InitialEventsAnnotationKey]; v != "" {
				obj += " initial-events-end"
			}
		}
		a.rows = append(a.rows, string(r.Cells)+" "+obj)
	}
	return a
}

func TestTableAnswers(t *testing.T) {
	t.Parallel()
	defaultColumns := []string{"Name string name 0", "Created At date 0"}
	const created = `"1999-12-30T00:00:00Z"`
	tests := []struct {
		name       string
		target     string
		accept     string
		code       int
		kind       string // "Table" unless set
		apiVersion string // meta.k8s.io/v1 unless set
		rv         string
		columns    []string
		rows       []string
		contains   []string // in the raw body
	}{
		{name: "table list - kubectl, default columns - pass", target: "/api/v1/configmaps", accept: kubectlAccept, code: 200, rv: "1008", columns: defaultColumns,
			rows: []string{`["a",` + created + `] meta.k8s.io/v1 PartialObjectMetadata ns1/a@1001`, `["b",` + created + `] meta.k8s.io/v1 PartialObjectMetadata ns1/b@1002`,
				`["c",` + created + `] meta.k8s.io/v1 PartialObjectMetadata ns2/c@1003`},
			contains: []string{`{"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace.`, `{"name":"Created At","type":"date","format":"","description":"CreationTimestamp is a timestamp`}},
		{name: "table list - includeObject=None - pass", target: "/api/v1/namespaces/ns1/configmaps?includeObject=None", accept: kubectlAccept, code: 200, rv: "1008", columns: defaultColumns,
			rows: []string{`["a",` + created + `] null`, `["b",` + created + `] null`}},
		{name: "table list - includeObject=Object - pass", target: "/api/v1/namespaces/ns1/configmaps?includeObject=Object", accept: kubectlAccept, code: 200, rv: "1008", columns: defaultColumns,
			rows: []string{`["a",` + created + `] v1 ConfigMap ns1/a@1001`, `["b",` + created + `] v1 ConfigMap ns1/b@1002`}},
		{name: "table list - includeObject=Metadata, v1beta1 - pass", target: "/api/v1/namespaces/ns2/configmaps?includeObject=Metadata", accept: "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
			code: 200, apiVersion: "meta.k8s.io/v1beta1", rv: "1008", columns: defaultColumns,
			rows: []string{`["c",` + created + `] meta.k8s.io/v1beta1 PartialObjectMetadata ns2/c@1003`}},
		{name: "table list - empty, default convertor - pass", target: "/api/v1/namespaces/none/configmaps", accept: kubectlAccept, code: 200, rv: "1008", columns: defaultColumns,
			contains: []string{`"rows":null`}},
		{name: "table list - Table at a lower quality than JSON - pass", target: "/api/v1/namespaces/ns2/configmaps", accept: "application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5,application/json",
			code: 200, kind: "ConfigMapList", apiVersion: "v1", rv: "1008"},
		{name: "table list - includeObject unknown - fail", target: "/api/v1/configmaps?includeObject=Bogus", accept: kubectlAccept, code: 400, kind: "Status", apiVersion: "v1",
			contains: []string{`"message":"Unable to convert to Table as requested: includeObject: Invalid value: \"Bogus\": must be 'Metadata', 'Object', 'None', or empty"`}},
		{name: "table get - one object - pass", target: "/api/v1/namespaces/ns1/configmaps/b", accept: kubectlAccept, code: 200, rv: "1002", columns: defaultColumns,
			rows: []string{`["b",` + created + `] meta.k8s.io/v1 PartialObjectMetadata ns1/b@1002`}},
		{name: "table get - missing object - fail", target: "/api/v1/namespaces/ns1/configmaps/nope", accept: kubectlAccept, code: 404, kind: "Status", apiVersion: "v1"},
		{name: "table list - CRD printer columns - pass", target: "/apis/example.com/v1/widgets", accept: kubectlAccept, code: 200, rv: "1010",
			columns:  []string{"Name string name 0", "Size integer 0", "Color string 0", "Ready boolean 1", "When date 0", "Ratio number 0", "Tags string 0", "Missing integer 0"},
			rows:     []string{`["w1",3,"red",true,"24h",0.5,"[\"x\",\"y\"]",null] meta.k8s.io/v1 PartialObjectMetadata ns1/w1@1005`},
			contains: []string{`"description":"the color"`, `"description":"Custom resource definition column (in JSONPath format): .spec.size"`}},
		{name: "table list - CRD version without printer columns - pass", target: "/apis/example.com/v2/widgets", accept: kubectlAccept, code: 200, rv: "1010",
			columns: []string{"Name string name 0", "Age date 0"}, rows: []string{`["w1","2d"] meta.k8s.io/v1 PartialObjectMetadata ns1/w1@1006`}},
		{name: "table list - CRD column with an unparsable JSONPath ends the columns - pass", target: "/apis/example.com/v3/widgets", accept: kubectlAccept, code: 200, rv: "1010",
			columns: []string{"Name string name 0", "First string 0"}, rows: []string{`["w1","red"] meta.k8s.io/v1 PartialObjectMetadata ns1/w1@1007`}},
		{name: "table list - CRD convertor, empty - pass", target: "/apis/example.com/v1/namespaces/none/widgets", accept: kubectlAccept, code: 200, rv: "1010",
			columns:  []string{"Name string name 0", "Size integer 0", "Color string 0", "Ready boolean 1", "When date 0", "Ratio number 0", "Tags string 0", "Missing integer 0"},
			contains: []string{`"rows":[]`}},
		{name: "table list - custom resource without its CRD - pass", target: "/apis/example.com/v1/gadgets", accept: kubectlAccept, code: 200, rv: "1010", columns: defaultColumns,
			rows: []string{`["g1",` + created + `] meta.k8s.io/v1 PartialObjectMetadata ns1/g1@1008`}},
	}
	h := tableHistory(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := get(New(h), tt.target, tt.accept)
				if rec.Code != tt.code {
					t.Fatalf("got code %d, want %d: %s", rec.Code, tt.code, rec.Body)
				}
				if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
					t.Errorf("got Content-Type %q, want application/json", ct)
				}
				got := decodeTable(t, rec.Body.Bytes())
				kind, apiVersion := tt.kind, tt.apiVersion
				if kind == "" {
					kind = "Table"
				}
				if apiVersion == "" {
					apiVersion = "meta.k8s.io/v1"
				}
				if got.kind != kind || got.apiVersion != apiVersion || got.rv != tt.rv {
					t.Errorf("got %s %s at rv %q, want %s %s at rv %q", got.apiVersion, got.kind, got.rv, apiVersion, kind, tt.rv)
				}
				if !reflect.DeepEqual(got.columns, tt.columns) {
					t.Errorf("got columns %q, want %q", got.columns, tt.columns)
				}
				if !reflect.DeepEqual(got.rows, tt.rows) {
					t.Errorf("got rows\n%q\nwant\n%q", got.rows, tt.rows)
				}
				for _, c := range tt.contains {
					if !strings.Contains(got.raw, c) {
						t.Errorf("got body %s, want it to contain %s", got.raw, c)
					}
				}
			})
		})
	}
}

// TestTableListPages follows a paged LIST in Table form, as kubectl get
// --chunk-size does. Each page is a Table with the continue token and the
// remaining count. Every object comes once.
func TestTableListPages(t *testing.T) {
	t.Parallel()
	srv := New(tableHistory(t))
	var rows []string
	target := "/api/v1/configmaps?limit=1"
	for page := 1; ; page++ {
		rec := get(srv, target, kubectlAccept)
		if rec.Code != 200 {
			t.Fatalf("page %d: got code %d, want 200: %s", page, rec.Code, rec.Body)
		}
		got := decodeTable(t, rec.Body.Bytes())
		if got.kind != "Table" || len(got.rows) != 1 || len(got.columns) != 2 {
			t.Fatalf("page %d: got %s with %d rows and %d columns, want a Table of 1 row and 2 columns", page, got.kind, len(got.rows), len(got.columns))
		}
		rows = append(rows, got.rows...)
		if got.cont == "" {
			if got.remaining != nil {
				t.Errorf("last page: got remainingItemCount %d, want none", *got.remaining)
			}
			break
		}
		if want := int64(3 - page); got.remaining == nil || *got.remaining != want {
			t.Errorf("page %d: got remainingItemCount %v, want %d", page, got.remaining, want)
		}
		if page > 3 {
			t.Fatalf("got more than 3 pages of 1 for 3 objects")
		}
		target = "/api/v1/configmaps?limit=1&continue=" + got.cont
	}
	want := []string{`["a","1999-12-30T00:00:00Z"] meta.k8s.io/v1 PartialObjectMetadata ns1/a@1001`,
		`["b","1999-12-30T00:00:00Z"] meta.k8s.io/v1 PartialObjectMetadata ns1/b@1002`,
		`["c","1999-12-30T00:00:00Z"] meta.k8s.io/v1 PartialObjectMetadata ns2/c@1003`}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("got rows %q, want %q", rows, want)
	}
}

// watchAnswer reads a watch answer of srv to target asked with accept
// (in a bubble, to its timeout): its frames, each type and raw object.
func watchAnswer(t *testing.T, srv *Server, target, accept string) (types []string, objects []json.RawMessage) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, testHost+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := srv.Transport().RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: got code %d, want 200: %s", target, resp.StatusCode, b)
	}
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var ev struct {
				Type   string          `json:"type"`
				Object json.RawMessage `json:"object"`
			}
			if jerr := json.Unmarshal(line, &ev); jerr != nil {
				t.Fatalf("frame %s: %v", line, jerr)
			}
			types, objects = append(types, ev.Type), append(objects, ev.Object)
		}
		if err != nil {
			return types, objects
		}
	}
}

// watchTable reads a watch answer (in a bubble, to its timeout): each
// frame's type, then its Table told as decodeTable does.
func watchTable(t *testing.T, srv *Server, target, accept string) []string {
	t.Helper()
	types, objects := watchAnswer(t, srv, target, accept)
	out := make([]string, 0, len(types))
	for i, typ := range types {
		tbl := decodeTable(t, objects[i])
		out = append(out, fmt.Sprintf("%s %s@%s columns=%d rows=[%s]", typ, tbl.kind, tbl.rv, len(tbl.columns), strings.Join(tbl.rows, " | ")))
	}
	return out
}

func TestTableWatch(t *testing.T) {
	t.Parallel()
	const created = `"1999-12-30T00:00:00Z"`
	tests := []struct {
		name   string
		target string
		accept string
		want   []string
	}{
		{name: "table watch - kubectl get -w, from the list's RV - pass", target: "/api/v1/configmaps?watch=true&resourceVersion=1008&timeoutSeconds=5", accept: kubectlAccept,
			want: []string{
				`MODIFIED Table@1009 columns=2 rows=[["a",` + created + `] meta.k8s.io/v1 PartialObjectMetadata ns1/a@1009]`,
				`DELETED Table@1010 columns=0 rows=[["c",` + created + `] meta.k8s.io/v1 PartialObjectMetadata ns2/c@1010]`,
			}},
		{name: "table watch - watchlist, includeObject=None, end bookmark keeps its metadata - pass",
			target: "/api/v1/namespaces/ns1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&includeObject=None&timeoutSeconds=5",
			accept: kubectlAccept,
			want: []string{
				`ADDED Table@1001 columns=2 rows=[["a",` + created + `] null]`,
				`ADDED Table@1002 columns=0 rows=[["b",` + created + `] null]`,
				`BOOKMARK Table@1008 columns=0 rows=[["","0001-01-01T00:00:00Z"] meta.k8s.io/v1 PartialObjectMetadata /@1008 initial-events-end]`,
				`MODIFIED Table@1009 columns=0 rows=[["a",` + created + `] null]`,
				`BOOKMARK Table@1010 columns=0 rows=[["","0001-01-01T00:00:00Z"] null]`, // 2 s before the timeout
			}},
		{name: "table watch - too old, the ERROR Status sent as it is - fail", target: "/api/v1/configmaps?watch=true&resourceVersion=1&timeoutSeconds=5", accept: kubectlAccept,
			want: []string{`ERROR Status@ columns=0 rows=[]`}},
	}
	h := tableHistory(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				got := watchTable(t, New(h, WithCompaction("1002")), tt.target, tt.accept)
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("got frames\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
				}
			})
		})
	}
}
