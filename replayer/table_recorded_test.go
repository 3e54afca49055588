package replayer

import (
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// recordedTableBody is a Table as kube-apiserver's ConfigMap printer
// answers it, which the replayer cannot compute: columns Name, Data, Age.
const recordedTableBody = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"1002"},"columnDefinitions":[` +
	`{"name":"Name","type":"string","format":"name","description":"","priority":0},{"name":"Data","type":"string","format":"","description":"","priority":0},` +
	`{"name":"Age","type":"string","format":"","description":"","priority":0}],"rows":[` +
	`{"cells":["a",0,"5m"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","namespace":"ns1","resourceVersion":"1001"}}},` +
	`{"cells":["b",0,"5m"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"b","namespace":"ns1","resourceVersion":"1002"}}}]}`

// recordedTableHistory is configmaps ns1/a and ns1/b listed at 1002, then
// a updated; the cassette also holds kubectl get's LIST at 1002 in Table
// form.
func recordedTableHistory(t *testing.T) *history.History {
	t.Helper()
	b := synth.NewBuilder()
	a := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "a"}}
	b.Add(a)
	b.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "b"}})
	b.Snapshot()
	a.Data = map[string]string{"k": "v"}
	b.Update(a)
	f, err := b.Cassette(synth.CassetteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.Add(cassette.Interaction{Method: "GET", URL: "https://kube.example/api/v1/configmaps?limit=500", Code: 200,
		RequestHeader: http.Header{"Accept": {kubectlAccept}}, Body: []byte(recordedTableBody)})
	h, err := history.Build(f)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return h
}

func TestTableRecorded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		target   string
		accept   string
		recorded bool // want the recorded answer, as recorded
	}{
		{name: "recorded table - the same page at the same RV - pass", target: "/api/v1/configmaps?limit=500", accept: kubectlAccept, recorded: true},
		{name: "recorded table - no limit, which is another page size - pass", target: "/api/v1/configmaps", accept: kubectlAccept},
		{name: "recorded table - another includeObject - pass", target: "/api/v1/configmaps?limit=500&includeObject=None", accept: kubectlAccept},
		{name: "recorded table - includeObject=Metadata is the default - pass", target: "/api/v1/configmaps?limit=500&includeObject=Metadata", accept: kubectlAccept, recorded: true},
		{name: "recorded table - one namespace - pass", target: "/api/v1/namespaces/ns1/configmaps?limit=500", accept: kubectlAccept},
		{name: "recorded table - a newer RV - pass", target: "/api/v1/configmaps?limit=500&resourceVersion=1003", accept: kubectlAccept},
		{name: "recorded table - v1beta1 asked - pass", target: "/api/v1/configmaps?limit=500", accept: "application/json;as=Table;v=v1beta1;g=meta.k8s.io"},
	}
	h := recordedTableHistory(t)
	if len(h.Tables) != 1 {
		t.Fatalf("got %d recorded Tables, want 1", len(h.Tables))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(New(h), tt.target, tt.accept)
			if rec.Code != 200 {
				t.Fatalf("got code %d, want 200: %s", rec.Code, rec.Body)
			}
			got := rec.Body.String()
			if tt.recorded && got != recordedTableBody+"\n" {
				t.Errorf("got %s, want the recorded Table %s", got, recordedTableBody)
			}
			if tbl := decodeTable(t, rec.Body.Bytes()); !tt.recorded && (tbl.kind != "Table" || len(tbl.columns) != 2 || tbl.columns[1] != "Created At date 0") {
				t.Errorf("got %s, want the default Table (Name, Created At)", got)
			}
		})
	}
}
