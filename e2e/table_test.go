package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/cluster"
	"github.com/lwreplay/lwreplay/replayer"
)

const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// tableCRD declares gizmos.table.lwreplay.example.com: v1 with printer
// columns of every type, v2 with none.
const tableCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.table.lwreplay.example.com"},
"spec":{"group":"table.lwreplay.example.com","scope":"Namespaced","names":{"plural":"gizmos","singular":"gizmo","kind":"Gizmo","listKind":"GizmoList"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},
"additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size"},{"name":"Color","type":"string","jsonPath":".spec.color","description":"the color"},
{"name":"Ready","type":"boolean","jsonPath":".status.ready","priority":1},{"name":"When","type":"date","jsonPath":".spec.when"},{"name":"Ratio","type":"number","jsonPath":".spec.ratio"},
{"name":"Tags","type":"string","jsonPath":".spec.tags"},{"name":"Missing","type":"integer","jsonPath":".spec.nope"}]},
{"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

// clusterClient asks the cluster with its token.
type clusterClient struct {
	c  *cluster.Cluster
	hc *http.Client
}

func (cc clusterClient) do(t *testing.T, method, path, accept string, body []byte) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // t's context ends before its cleanups
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, cc.c.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+cc.c.Token)
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := cc.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read: %v", method, path, err)
	}
	return resp.StatusCode, b
}

// TestTableMatchesKubeAPIServer records a custom resource and its
// CustomResourceDefinition from a real kube-apiserver, and replays them.
// It wants the replay's Table as kube-apiserver's: the same column
// definitions and the same cells. Cells of date columns are left out:
// ages move with the clock.
func TestTableMatchesKubeAPIServer(t *testing.T) {
	c := sharedCluster(t)
	cc := clusterClient{c: c, hc: &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}}
	if code, b := cc.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", []byte(tableCRD)); code != 201 && code != 409 {
		t.Fatalf("create CRD: got %d %s, want 201", code, b)
	}
	cc.do(t, "POST", "/api/v1/namespaces", "", []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"e2e-table"}}`))
	t.Cleanup(func() { // the shared cluster's other tests see no trace of it
		cc.do(t, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.table.lwreplay.example.com", "", nil)
		cc.do(t, "DELETE", "/api/v1/namespaces/e2e-table", "", nil)
	})
	gizmo := `{"apiVersion":"table.lwreplay.example.com/v1","kind":"Gizmo","metadata":{"name":"g1","namespace":"e2e-table"},
"spec":{"size":3,"color":"red","when":"2024-01-02T03:04:05Z","ratio":0.5,"tags":["x","y"],"nested":{"a":1}},"status":{"ready":true}}`
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		code, b := cc.do(t, "POST", "/apis/table.lwreplay.example.com/v1/namespaces/e2e-table/gizmos", "", []byte(gizmo))
		if code == 201 || code == 409 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("create gizmo: got %d %s, want 201 within 30s of the CRD", code, b)
		}
		time.Sleep(200 * time.Millisecond)
	}
	f := cassette.New()
	f.Path = "recorded.yaml"
	for _, p := range []string{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "/apis/table.lwreplay.example.com/v1/gizmos", "/apis/table.lwreplay.example.com/v2/gizmos"} {
		code, b := cc.do(t, "GET", p, "application/json", nil)
		if code != 200 {
			t.Fatalf("GET %s: got %d %s", p, code, b)
		}
		f.Add(cassette.Interaction{Method: "GET", URL: c.URL + p, Code: 200, Body: b})
	}
	h, err := history.Build(f)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	ts := httptest.NewServer(replayer.New(h))
	defer ts.Close()
	replay := clusterClient{c: &cluster.Cluster{URL: ts.URL}, hc: ts.Client()}
	for _, tt := range []struct {
		name, path string
	}{
		{name: "table - CRD printer columns as kube-apiserver's - pass", path: "/apis/table.lwreplay.example.com/v1/gizmos?includeObject=None"},
		{name: "table - CRD version without columns as kube-apiserver's - pass", path: "/apis/table.lwreplay.example.com/v2/gizmos?includeObject=None"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, real := cc.do(t, "GET", tt.path, tableAccept, nil)
			code, got := replay.do(t, "GET", tt.path, tableAccept, nil)
			if code != 200 {
				t.Fatalf("replay: got %d %s, want 200", code, got)
			}
			rt, gt := comparableTable(t, real), comparableTable(t, got)
			if len(rt.Rows) != 1 {
				t.Fatalf("kube-apiserver: got %d rows, want the one gizmo: %s", len(rt.Rows), real)
			}
			if !reflect.DeepEqual(gt.ColumnDefinitions, rt.ColumnDefinitions) {
				t.Errorf("got columns %+v, want kube-apiserver's %+v", gt.ColumnDefinitions, rt.ColumnDefinitions)
			}
			if fmt.Sprint(gt.Rows) != fmt.Sprint(rt.Rows) {
				t.Errorf("got rows %v, want kube-apiserver's %v", gt.Rows, rt.Rows)
			}
		})
	}
}

// comparableTable decodes a Table and blanks the cells of date columns.
func comparableTable(t *testing.T, body []byte) metav1.Table {
	t.Helper()
	var tbl metav1.Table
	if err := json.Unmarshal(body, &tbl); err != nil || tbl.Kind != "Table" {
		t.Fatalf("got %s, want a Table (%v)", body, err)
	}
	for i, col := range tbl.ColumnDefinitions {
		if col.Type != "date" {
			continue
		}
		for _, r := range tbl.Rows {
			if i < len(r.Cells) {
				r.Cells[i] = "(date)"
			}
		}
	}
	return tbl
}
