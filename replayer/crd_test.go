package replayer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// widgetCRD is the Widget CRD of examples/widgets/testdata/crd.yaml (recorded
// from a real kube-apiserver) as a LIST item: namespaced, one version, a
// status subresource.
const widgetCRD = `{"metadata":{"name":"widgets.example.lwreplay.dev","uid":"u-crd","resourceVersion":"40"},` +
	`"spec":{"group":"example.lwreplay.dev","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget",` +
	`"listKind":"WidgetList","shortNames":["wd"],"categories":["all"]},"versions":[{"name":"v1","served":true,"storage":true,` +
	`"subresources":{"status":{}},"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

// gadgetCRD defines a namespaced Gadget no traffic of which is recorded.
const gadgetCRD = `{"metadata":{"name":"gadgets.example.lwreplay.dev","uid":"u-crd2","resourceVersion":"41"},` +
	`"spec":{"group":"example.lwreplay.dev","scope":"Namespaced","names":{"plural":"gadgets","singular":"gadget","kind":"Gadget",` +
	`"listKind":"GadgetList"},"versions":[{"name":"v1","served":true,"storage":true,` +
	`"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

// crdTraffic is a recording of the CRDs, a LIST at rv 45 holding crds.
func crdTraffic(crds ...string) cassette.Interaction {
	return cassette.Interaction{Method: "GET", URL: "https://kube.example/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Code: 200,
		Body: []byte(`{"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","metadata":{"resourceVersion":"45"},"items":[` +
			strings.Join(crds, ",") + `]}`)}
}

// emptyWatchList is a recorded cluster-wide WatchList of path holding no
// object: its two bookmarks, which name no kind.
func emptyWatchList(path string) cassette.Interaction {
	return cassette.Interaction{Method: "GET", URL: "https://kube.example" + path + "?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true", Code: 200,
		Body: []byte(`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"50","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n" +
			`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"51"}}}` + "\n")}
}

// buildOf builds the history of ints, or fails t.
func buildOf(t *testing.T, ints ...cassette.Interaction) *history.History {
	t.Helper()
	h, err := history.Build(&cassette.File{Path: "crd.yaml", Interactions: ints})
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	return h
}

// Queries of a WatchList and of a watch from the newest state. Both have
// bookmarks and a timeout of 5 s; a watch's bookmark comes 2 s before it.
const (
	watchListQuery = "?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=5"
	watchQuery     = "?watch=true&allowWatchBookmarks=true&resourceVersion=51&timeoutSeconds=5"
)

// firstBookmark returns the kind and apiVersion of the first BOOKMARK of
// a watch of path with query, asked with accept.
func firstBookmark(t *testing.T, srv *Server, path, query, accept string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://replay.invalid"+path+query, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := srv.Transport().RoundTrip(req)
	if err != nil {
		t.Fatalf("WatchList: got error %v, want none", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var f struct {
			Type   string `json:"type"`
			Object struct {
				Kind       string `json:"kind"`
				APIVersion string `json:"apiVersion"`
			} `json:"object"`
		}
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("frame %q: got error %v, want none", sc.Text(), err)
		}
		if f.Type == "BOOKMARK" {
			go io.Copy(io.Discard, resp.Body) //nolint:errcheck // the rest is not read
			return fmt.Sprintf("kind=%q apiVersion=%q", f.Object.Kind, f.Object.APIVersion)
		}
	}
	return "no bookmark"
}

func TestBookmarkKind(t *testing.T) {
	const partial = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
	tests := []struct {
		name   string
		ints   []cassette.Interaction
		path   string
		query  string
		accept string
		want   string
	}{
		{name: "bookmark kind - a watch's, built-in, recorded bookmarks name none - pass", ints: []cassette.Interaction{emptyWatchList("/api/v1/configmaps")},
			path: "/api/v1/configmaps", query: watchQuery, want: `kind="ConfigMap" apiVersion="v1"`},
		{name: "bookmark kind - a watch's, custom resource, its CRD recorded - pass",
			ints: []cassette.Interaction{crdTraffic(widgetCRD), emptyWatchList("/apis/example.lwreplay.dev/v1/widgets")},
			path: "/apis/example.lwreplay.dev/v1/widgets", query: watchQuery, want: `kind="Widget" apiVersion="example.lwreplay.dev/v1"`},
		{name: "bookmark kind - built-in, recorded bookmarks name none - pass", ints: []cassette.Interaction{emptyWatchList("/api/v1/configmaps")},
			path: "/api/v1/configmaps", want: `kind="ConfigMap" apiVersion="v1"`},
		{name: "bookmark kind - custom resource, its CRD recorded, bookmarks name none - pass",
			ints: []cassette.Interaction{crdTraffic(widgetCRD), emptyWatchList("/apis/example.lwreplay.dev/v1/widgets")},
			path: "/apis/example.lwreplay.dev/v1/widgets", want: `kind="Widget" apiVersion="example.lwreplay.dev/v1"`},
		{name: "bookmark kind - custom resource known only from its CRD - pass", ints: []cassette.Interaction{crdTraffic(widgetCRD, gadgetCRD)},
			path: "/apis/example.lwreplay.dev/v1/namespaces/ns/gadgets", want: `kind="Gadget" apiVersion="example.lwreplay.dev/v1"`},
		{name: "bookmark kind - metadata-only WatchList - pass", ints: []cassette.Interaction{crdTraffic(widgetCRD), emptyWatchList("/apis/example.lwreplay.dev/v1/widgets")},
			path: "/apis/example.lwreplay.dev/v1/widgets", accept: partial, want: `kind="PartialObjectMetadata" apiVersion="meta.k8s.io/v1"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := buildOf(t, tc.ints...)
			synctest.Test(t, func(t *testing.T) {
				query := tc.query
				if query == "" {
					query = watchListQuery
				}
				if got := firstBookmark(t, New(h), tc.path, query, tc.accept); got != tc.want {
					t.Errorf("got %s, want %s", got, tc.want)
				}
			})
		})
	}
}

// TestDynamicInformerSyncs runs a dynamic informer with WatchList on
// cassettes whose bookmarks name no kind. Its objects are unstructured: a
// bookmark without kind does not decode, and the reflector falls back to
// LIST.
func TestDynamicInformerSyncs(t *testing.T) {
	testutil.RequireWatchList(t)
	widgets := schema.GroupVersionResource{Group: "example.lwreplay.dev", Version: "v1", Resource: "widgets"}
	tests := []struct {
		name string
		ints []cassette.Interaction
		gvr  schema.GroupVersionResource
	}{
		{name: "dynamic informer - WatchList of configmaps, bookmarks without kind - syncs - pass",
			ints: []cassette.Interaction{emptyWatchList("/api/v1/configmaps")}, gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}},
		{name: "dynamic informer - WatchList of widgets, bookmarks without kind, CRD recorded - syncs - pass",
			ints: []cassette.Interaction{crdTraffic(widgetCRD), emptyWatchList("/apis/example.lwreplay.dev/v1/widgets")}, gvr: widgets},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := buildOf(t, tc.ints...)
			synctest.Test(t, func(t *testing.T) {
				srv := New(h)
				rl := &requestLog{rt: srv.Transport()}
				dyn, err := dynamic.NewForConfig(&rest.Config{Host: "http://replay.invalid", Transport: rl})
				if err != nil {
					t.Fatalf("dynamic client: got error %v, want none", err)
				}
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				f := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
				inf := f.ForResource(tc.gvr).Informer()
				f.Start(ctx.Done())
				defer f.Shutdown()
				defer cancel()
				if got := cache.WaitForCacheSync(ctx.Done(), inf.HasSynced); !got {
					t.Errorf("synced within a minute: got %v, want true", got)
				}
				// a WatchList whose bookmarks do not decode falls back to LIST
				if got := rl.requests(); len(got) == 0 || got[0] != "WATCHLIST rv=" || slices.ContainsFunc(got, func(r string) bool { return strings.HasPrefix(r, "LIST") }) {
					t.Errorf("requests: got %q, want a WATCHLIST and no LIST", got)
				}
			})
		})
	}
}

// TestCRDOnlyKind: a kind known only from its CRD is served with the
// CRD's scope and listed in discovery. There client-go's REST mapper
// finds it (controller-runtime's reads the same discovery).
func TestCRDOnlyKind(t *testing.T) {
	h := buildOf(t, crdTraffic(widgetCRD, gadgetCRD), emptyWatchList("/api/v1/configmaps"))
	{
		srv := New(h)
		cfg := &rest.Config{Host: "http://replay.invalid", Transport: srv.Transport()}
		dc, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			t.Fatalf("discovery client: got error %v, want none", err)
		}
		groups, err := restmapper.GetAPIGroupResources(dc)
		if err != nil {
			t.Fatalf("GetAPIGroupResources: got error %v, want none", err)
		}
		mapper := restmapper.NewDiscoveryRESTMapper(groups)
		scope := func(kind string) string {
			m, err := mapper.RESTMapping(schema.GroupKind{Group: "example.lwreplay.dev", Kind: kind}, "v1")
			if err != nil {
				return "error: " + err.Error()
			}
			return fmt.Sprintf("%s %s", m.Resource.Resource, m.Scope.Name())
		}
		_, rls, err := dc.ServerGroupsAndResources()
		if err != nil {
			t.Fatalf("ServerGroupsAndResources: got error %v, want none", err)
		}
		listed := map[string]string{}
		for _, rl := range rls {
			if rl.GroupVersion != "example.lwreplay.dev/v1" {
				continue
			}
			for _, r := range rl.APIResources {
				listed[r.Name] = fmt.Sprintf("namespaced=%v singular=%s short=%v categories=%v", r.Namespaced, r.SingularName, r.ShortNames, r.Categories)
			}
		}
		// controller-runtime's lazy REST mapper asks the group version's own document
		perGV := "not listed"
		if rl, err := dc.ServerResourcesForGroupVersion("example.lwreplay.dev/v1"); err != nil {
			perGV = "error: " + err.Error()
		} else {
			for _, r := range rl.APIResources {
				if r.Name == "gadgets" {
					perGV = fmt.Sprintf("%s namespaced=%v", r.Kind, r.Namespaced)
				}
			}
		}
		// a namespaced create, then a namespaced LIST finds it
		body := `{"apiVersion":"example.lwreplay.dev/v1","kind":"Gadget","metadata":{"name":"g1","namespace":"ns"}}`
		create := func() int {
			req, _ := http.NewRequest(http.MethodPost, "http://replay.invalid/apis/example.lwreplay.dev/v1/namespaces/ns/gadgets", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := srv.Transport().RoundTrip(req)
			if err != nil {
				t.Fatalf("create: got error %v, want none", err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		first, second := create(), create()
		// a create's status: reset under a status subresource (the custom
		// resource strategy's PrepareForCreate), kept without one
		statusOf := func(resource, kind string) string {
			b := `{"apiVersion":"example.lwreplay.dev/v1","kind":"` + kind + `","metadata":{"name":"s1","namespace":"ns"},"status":{"ready":true}}`
			req, _ := http.NewRequest(http.MethodPost, "http://replay.invalid/apis/example.lwreplay.dev/v1/namespaces/ns/"+resource, strings.NewReader(b))
			req.Header.Set("Content-Type", "application/json")
			resp, err := srv.Transport().RoundTrip(req)
			if err != nil {
				return "error: " + err.Error()
			}
			defer resp.Body.Close()
			var o struct {
				Status map[string]any `json:"status"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&o); err != nil {
				return "error: " + err.Error()
			}
			return fmt.Sprintf("%d %v", resp.StatusCode, o.Status)
		}
		widgetStatus, gadgetStatus := statusOf("widgets", "Widget"), statusOf("gadgets", "Gadget")
		req, _ := http.NewRequest(http.MethodGet, "http://replay.invalid/apis/example.lwreplay.dev/v1/namespaces/ns/gadgets", nil)
		resp, err := srv.Transport().RoundTrip(req)
		if err != nil {
			t.Fatalf("LIST: got error %v, want none", err)
		}
		var list struct {
			Items []struct {
				Metadata struct{ Namespace, Name string }
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		names := []string{}
		for _, it := range list.Items {
			names = append(names, it.Metadata.Namespace+"/"+it.Metadata.Name)
		}
		l, _ := srv.Served().Log(history.Resource{Group: "example.lwreplay.dev", Version: "v1", Resource: "gadgets"})
		served := "no log"
		if l != nil {
			served = fmt.Sprintf("%s namespaced=%v", l.Resource.Kind, l.Resource.Namespaced)
		}
		tests := []struct {
			name, got, want string
		}{
			{"CRD-only kind - REST mapper finds it namespaced - pass", scope("Gadget"), "gadgets namespace"},
			{"CRD-only kind - REST mapper finds a recorded CRD's kind - pass", scope("Widget"), "widgets namespace"},
			{"CRD-only kind - discovery lists it with the CRD's names - pass", listed["gadgets"], "namespaced=true singular=gadget short=[] categories=[]"},
			{"CRD-only kind - its group version's document lists it - pass", perGV, "Gadget namespaced=true"},
			{"CRD-only kind - discovery lists short names and categories - pass", listed["widgets"], "namespaced=true singular=widget short=[wd] categories=[all]"},
			{"CRD-only kind - status subresource as the CRD says - pass", fmt.Sprint(listed["widgets/status"] != "", listed["gadgets/status"] != ""), "true false"},
			{"CRD-only kind - served as the CRD says - pass", served, "Gadget namespaced=true"},
			{"CRD-only kind - a create, then the same create - pass", fmt.Sprint(first, " ", second), "201 409"},
			{"CRD-only kind - a create's status, a status subresource - pass", widgetStatus, "201 map[]"},
			{"CRD-only kind - a create's status, no status subresource - pass", gadgetStatus, "201 map[ready:true]"},
			{"CRD-only kind - a namespaced LIST finds the created object - pass", fmt.Sprint(names, err), "[ns/g1 ns/s1] <nil>"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if tc.got != tc.want {
					t.Errorf("got %q, want %q", tc.got, tc.want)
				}
			})
		}
	}
}

// TestCRDWrittenByTarget: a CRD the target creates puts its kind in
// discovery, namespaced as it says.
func TestCRDWrittenByTarget(t *testing.T) {
	h := buildOf(t, emptyWatchList("/api/v1/configmaps"))
	srv := New(h)
	cfg := &rest.Config{Host: "http://replay.invalid", Transport: srv.Transport()}
	mapping := func() string {
		dc, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			return "error: " + err.Error()
		}
		groups, err := restmapper.GetAPIGroupResources(dc)
		if err != nil {
			return "error: " + err.Error()
		}
		m, err := restmapper.NewDiscoveryRESTMapper(groups).RESTMapping(schema.GroupKind{Group: "example.lwreplay.dev", Kind: "Gadget"}, "v1")
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("%s %s", m.Resource.Resource, m.Scope.Name())
	}
	before := mapping()
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",` +
		strings.Replace(strings.TrimPrefix(gadgetCRD, "{"), `,"uid":"u-crd2","resourceVersion":"41"`, "", 1)
	req, _ := http.NewRequest(http.MethodPost, "http://replay.invalid/apis/apiextensions.k8s.io/v1/customresourcedefinitions", strings.NewReader(crd))
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Transport().RoundTrip(req)
	if err != nil {
		t.Fatalf("create: got error %v, want none", err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	after := mapping()
	tests := []struct{ name, got, want string }{
		{"CRD written by the target - before it, no kind - pass", before, `error: no matches for kind "Gadget" in version "example.lwreplay.dev/v1"`},
		{"CRD written by the target - its create - pass", fmt.Sprint(resp.StatusCode), "201"},
		{"CRD written by the target - its answer's kind - pass", fmt.Sprint(strings.Contains(string(msg), `"kind":"CustomResourceDefinition"`)), "true"},
		{"CRD written by the target - after it, its kind namespaced - pass", after, "gadgets namespace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

// TestCRDDiscoveryNoRecorded builds the discovery of a served CRD's kind
// for a recording that holds no legacy discovery answers (a nil map).
func TestCRDDiscoveryNoRecorded(t *testing.T) {
	crd := history.CRDVersion{Served: true, Resource: history.Resource{Group: "example.lwreplay.dev", Version: "v1", Resource: "gadgets", Kind: "Gadget", Namespaced: true}}
	for _, tc := range []struct {
		name     string
		recorded map[string][]byte
	}{
		{name: "crd discovery - nil recorded answers - pass"},
		{name: "crd discovery - empty recorded answers - pass", recorded: map[string][]byte{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, out := crdDiscovery(tc.recorded, []history.CRDVersion{crd})
			if len(res) != 1 || res[0].Resource != "gadgets" {
				t.Errorf("got resources %v, want gadgets", res)
			}
			if _, ok := out["/apis/example.lwreplay.dev/v1"]; !ok {
				t.Errorf("got answers at %v, want one at /apis/example.lwreplay.dev/v1", slices.Collect(maps.Keys(out)))
			}
		})
	}
}
