package history_test

import (
	"net/http"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// kubectlAccept is what kubectl get sends: a Table first.
const kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// tableBody is a Table answer at rv with one row per name.
func tableBody(rv string, names ...string) string {
	rows := ""
	for i, n := range names {
		if i > 0 {
			rows += ","
		}
		rows += `{"cells":["` + n + `",1,"5m"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"` + n + `","namespace":"ns","resourceVersion":"` + rv + `"}}}`
	}
	return `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"` + rv + `"},"columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"","priority":0},{"name":"Data","type":"string","format":"","description":"","priority":0},{"name":"Age","type":"string","format":"","description":"","priority":0}],"rows":[` + rows + `]}`
}

// withAccept returns i as requested with the Accept header accept.
func withAccept(i cassette.Interaction, accept string) cassette.Interaction {
	i.RequestHeader = http.Header{"Accept": {accept}}
	return i
}

func TestBuildTables(t *testing.T) {
	t.Parallel()
	base := []cassette.Interaction{
		list("", "10", "", cm("a", "5"), cm("b", "7")),
		watch("resourceVersion=10", ev("ADDED", cm("c", "11"))),
	}
	tableWatch := `{"type":"ADDED","object":` + tableBody("11", "c") + "}"
	tests := []struct {
		name       string
		extra      []cassette.Interaction
		wantTables []string // "includeObject rv apiVersion"
	}{
		{name: "build - Table LIST asked by Accept - kept aside - pass",
			extra:      []cassette.Interaction{withAccept(get("/api/v1/namespaces/ns/configmaps?limit=500", tableBody("10", "a", "b")), kubectlAccept)},
			wantTables: []string{" 10 meta.k8s.io/v1"}},
		{name: "build - Table LIST known by its body, includeObject - kept aside - pass",
			extra:      []cassette.Interaction{get("/api/v1/namespaces/ns/configmaps?includeObject=None", tableBody("10", "a", "b"))},
			wantTables: []string{"None 10 meta.k8s.io/v1"}},
		{name: "build - watch of Tables - left out - pass",
			extra: []cassette.Interaction{withAccept(get("/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=10", tableWatch+"\n"), kubectlAccept)}},
		{name: "build - watch of Tables known by its frames - left out - pass",
			extra: []cassette.Interaction{get("/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=10", tableWatch+"\n")}},
	}
	want, err := history.Build(file("base.yaml", base...))
	if err != nil {
		t.Fatalf("base: %v", err)
	}
	wl, _ := want.Log(history.Resource{Version: "v1", Resource: "configmaps"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := history.Build(file("t.yaml", append(append([]cassette.Interaction{}, base...), tt.extra...)...))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			l, ok := h.Log(history.Resource{Version: "v1", Resource: "configmaps"})
			if !ok || len(h.Logs) != 1 {
				t.Fatalf("got %d logs, want the configmaps log alone", len(h.Logs))
			}
			if objs(l.Initial) != objs(wl.Initial) || events(l.Events) != events(wl.Events) || l.Lists != wl.Lists || l.Watches != wl.Watches || l.Resource != wl.Resource {
				t.Errorf("got log %s %s [%s] [%s] lists %d watches %d, want it as without Tables: %s %s [%s] [%s] lists %d watches %d",
					l.Resource, l.StartRV, objs(l.Initial), events(l.Events), l.Lists, l.Watches,
					wl.Resource, wl.StartRV, objs(wl.Initial), events(wl.Events), wl.Lists, wl.Watches)
			}
			var got []string
			for _, tb := range h.Tables {
				got = append(got, tb.IncludeObject+" "+tb.RV+" "+tb.APIVersion)
				if tb.Request.Resource.Resource != "configmaps" || tb.Request.Namespace != "ns" || string(tb.Body) == "" {
					t.Errorf("got table of %+v with body %q, want the request of configmaps in ns and its body", tb.Request, tb.Body)
				}
			}
			if len(got) != len(tt.wantTables) || (len(got) > 0 && got[0] != tt.wantTables[0]) {
				t.Errorf("got tables %q, want %q", got, tt.wantTables)
			}
		})
	}
}
