package history_test

import (
	"fmt"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// widgetCRD is the Widget CRD of examples/widgets/testdata/crd.yaml, as a
// real kube-apiserver lists it: namespaced, one version, a status
// subresource.
const widgetCRD = `{"metadata":{"name":"widgets.example.lwreplay.dev","uid":"u-crd","resourceVersion":"40"},` +
	`"spec":{"group":"example.lwreplay.dev","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget",` +
	`"listKind":"WidgetList","shortNames":["wd"],"categories":["all"]},"versions":[{"name":"v1","served":true,"storage":true,` +
	`"subresources":{"status":{}},"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`

// crdList is a LIST of the CRDs at rv holding items.
func crdList(rv string, items ...string) cassette.Interaction {
	body := fmt.Sprintf(`{"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","metadata":{"resourceVersion":%q},"items":[`, rv)
	for i, it := range items {
		if i > 0 {
			body += ","
		}
		body += it
	}
	return get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", body+"]}")
}

// widgetWatchList is a cluster-wide WatchList of widgets with no object: its
// bookmarks only, which carry kind when withKind.
func widgetWatchList(withKind bool) cassette.Interaction {
	kind := ""
	if withKind {
		kind = `"kind":"Widget","apiVersion":"example.lwreplay.dev/v1",`
	}
	return get("/apis/example.lwreplay.dev/v1/widgets?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan",
		`{"type":"BOOKMARK","object":{`+kind+`"metadata":{"resourceVersion":"50","annotations":{"k8s.io/initial-events-end":"true"}}}}`+"\n"+
			`{"type":"BOOKMARK","object":{`+kind+`"metadata":{"resourceVersion":"51"}}}`+"\n")
}

// widgetList is a cluster-wide LIST of no widget as kind asked it.
func widgetList(kind, apiVersion string) cassette.Interaction {
	return get("/apis/example.lwreplay.dev/v1/widgets",
		fmt.Sprintf(`{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":"50"},"items":[]}`, kind, apiVersion))
}

// aggregatedApis is a recorded aggregated /apis answer listing widgets.
var aggregatedApis = get("/apis", `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[`+
	`{"metadata":{"name":"example.lwreplay.dev"},"versions":[{"version":"v1","resources":[{"resource":"widgets",`+
	`"responseKind":{"group":"","version":"","kind":"Widget"},"scope":"Namespaced","singularResource":"widget","verbs":["get","list","watch"]}]}]}]}`)

func TestBuild_KindAndScope(t *testing.T) {
	tests := []struct {
		name string
		ints []cassette.Interaction
		want string // the widgets log's Kind and scope
	}{
		{name: "kind - WatchList of bookmarks only - pass", ints: []cassette.Interaction{widgetWatchList(true)},
			want: "Widget namespaced=false"},
		{name: "kind - bookmarks without kind - pass", ints: []cassette.Interaction{widgetWatchList(false)},
			want: " namespaced=false"},
		{name: "kind - a metadata-only LIST names no kind of the resource - pass",
			ints: []cassette.Interaction{widgetList("PartialObjectMetadataList", "meta.k8s.io/v1")}, want: " namespaced=false"},
		{name: "kind - a LIST's - pass", ints: []cassette.Interaction{widgetList("WidgetList", "example.lwreplay.dev/v1")},
			want: "Widget namespaced=false"},
		{name: "scope - aggregated discovery recorded - pass", ints: []cassette.Interaction{aggregatedApis, widgetWatchList(false)},
			want: "Widget namespaced=true"},
		{name: "scope - the recorded CRD, bookmarks without kind - pass", ints: []cassette.Interaction{crdList("45", widgetCRD), widgetWatchList(false)},
			want: "Widget namespaced=true"},
		{name: "scope - the recorded CRD over an empty cluster-wide LIST - pass",
			ints: []cassette.Interaction{widgetList("WidgetList", "example.lwreplay.dev/v1"), crdList("45", widgetCRD)}, want: "Widget namespaced=true"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := history.Build(file("k.yaml", tc.ints...))
			if err != nil {
				t.Fatalf("Build: got error %v, want none", err)
			}
			l, ok := h.Log(history.Resource{Group: "example.lwreplay.dev", Version: "v1", Resource: "widgets"})
			if !ok {
				t.Fatalf("got no widgets log, want one")
			}
			if got := fmt.Sprintf("%s namespaced=%v", l.Resource.Kind, l.Resource.Namespaced); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCRDVersions(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want string
		err  bool
	}{
		{name: "CRDVersions - the Widget CRD - pass", raw: widgetCRD,
			want: "[{widgets.v1.example.lwreplay.dev Widget true} widget WidgetList [wd] [all] served=true storage=true status=true scale=false]"},
		{name: "CRDVersions - cluster-scoped, two versions, scale - pass",
			raw: `{"spec":{"group":"g.io","scope":"Cluster","names":{"plural":"gadgets","kind":"Gadget"},"versions":[` +
				`{"name":"v1","served":true,"storage":false},{"name":"v2","served":true,"storage":true,"subresources":{"scale":{"specReplicasPath":".spec.r"}}}]}}`,
			want: "[{gadgets.v1.g.io Gadget false}   [] [] served=true storage=false status=false scale=false] " +
				"[{gadgets.v2.g.io Gadget false}   [] [] served=true storage=true status=false scale=true]"},
		{name: "CRDVersions - scope left out is namespaced - pass",
			raw:  `{"spec":{"group":"g.io","names":{"plural":"gadgets","kind":"Gadget"},"versions":[{"name":"v1"}]}}`,
			want: "[{gadgets.v1.g.io Gadget true}   [] [] served=false storage=false status=false scale=false]"},
		{name: "CRDVersions - no kind - fail", raw: `{"spec":{"group":"g.io","names":{"plural":"gadgets"},"versions":[{"name":"v1"}]}}`, err: true},
		{name: "CRDVersions - not JSON - fail", raw: `{`, err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs, err := history.CRDVersions([]byte(tc.raw))
			if (err != nil) != tc.err {
				t.Fatalf("got error %v, want error %v", err, tc.err)
			}
			got := ""
			for i, v := range vs {
				if i > 0 {
					got += " "
				}
				got += fmt.Sprintf("[{%s %s %v} %s %s %v %v served=%v storage=%v status=%v scale=%v]", v.Resource, v.Resource.Kind, v.Resource.Namespaced,
					v.Singular, v.ListKind, v.ShortNames, v.Categories, v.Served, v.Storage, v.Status, v.Scale)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWithResource(t *testing.T) {
	h, err := history.Build(file("k.yaml", widgetWatchList(false), list("", "7", "", cm("a", "5"))))
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	widgets := history.Resource{Group: "example.lwreplay.dev", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	tests := []struct {
		name string
		r    history.Resource
		want string
		err  bool
	}{
		{name: "WithResource - a kind and scope learned - pass", r: widgets, want: "Widget namespaced=true"},
		{name: "WithResource - no log of it - fail", r: history.Resource{Version: "v1", Resource: "secrets", Kind: "Secret"}, err: true},
		{name: "WithResource - namespaced objects made cluster-scoped - fail", r: history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}, err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := history.WithResource(h, tc.r)
			if (err != nil) != tc.err {
				t.Fatalf("got error %v, want error %v", err, tc.err)
			}
			if err != nil {
				return
			}
			l, _ := out.Log(tc.r)
			if got := fmt.Sprintf("%s namespaced=%v", l.Resource.Kind, l.Resource.Namespaced); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if old, _ := h.Log(tc.r); old.Resource.Kind != "" || old == l {
				t.Errorf("got the old log changed (kind %q, same log %v), want it as it was", old.Resource.Kind, old == l)
			}
			if out.Logs[1] != h.Logs[1] {
				t.Errorf("got the other log copied, want it shared")
			}
		})
	}
}
