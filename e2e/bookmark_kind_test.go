package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
)

// bookmarkNS is the namespace TestBookmarkKindLikeRealApiserver watches:
// it holds no widget and no configmap of the test's.
const bookmarkNS = "e2e-bookmark-kind"

// firstBookmarkOf returns the type, kind and apiVersion of the first
// BOOKMARK of a WatchList of path sent through rt with accept, and its
// resourceVersion.
func firstBookmarkOf(rt http.RoundTripper, host, path, accept string) (got, rv string, err error) {
	req, err := http.NewRequest(http.MethodGet, host+path+"?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=3", nil)
	if err != nil {
		return "", "", err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var f struct {
			Type   string `json:"type"`
			Object struct {
				Kind       string `json:"kind"`
				APIVersion string `json:"apiVersion"`
				Metadata   struct {
					ResourceVersion string `json:"resourceVersion"`
				} `json:"metadata"`
			} `json:"object"`
		}
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return "", "", fmt.Errorf("frame %.200q: %w", sc.Text(), err)
		}
		if f.Type == "BOOKMARK" {
			go io.Copy(io.Discard, resp.Body) //nolint:errcheck // the rest is not read
			return fmt.Sprintf("kind=%q apiVersion=%q", f.Object.Kind, f.Object.APIVersion), f.Object.Metadata.ResourceVersion, nil
		}
	}
	return "no bookmark", "", sc.Err()
}

// TestBookmarkKindLikeRealApiserver: take the initial-events-end BOOKMARK of a
// WatchList of an empty collection. The collection is a custom resource's or a
// built-in's, asked as objects, as PartialObjectMetadata and as a Table. On the
// replay it carries the kind and apiVersion kube-apiserver 1.37.2's carries. The
// recording's bookmarks name no kind; the CRD is recorded.
func TestBookmarkKindLikeRealApiserver(t *testing.T) {
	c := sharedCluster(t)
	ctx := t.Context()
	cfg := c.RestConfig()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := applyCRD(ctx, dyn, widgetCRD, widgetGVR); err != nil {
		t.Fatal(err)
	}
	if err := ensureNamespaces(ctx, cs, bookmarkNS); err != nil {
		t.Fatal(err)
	}
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	crds, err := cs.RESTClient().Get().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"/apis/example.lwreplay.dev/v1/namespaces/" + bookmarkNS + "/widgets", "/api/v1/namespaces/" + bookmarkNS + "/configmaps"}
	const (
		partial = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
		table   = "application/json;as=Table;g=meta.k8s.io;v=v1"
	)
	// the recording: the CRDs, and each WatchList's bookmarks with no kind
	ints := []cassette.Interaction{{Method: "GET", URL: cfg.Host + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Code: 200, Body: crds}}
	for _, p := range paths {
		_, rv, err := firstBookmarkOf(rt, cfg.Host, p, "")
		if err != nil {
			t.Fatal(err)
		}
		ints = append(ints, cassette.Interaction{Method: "GET", Code: 200,
			URL:  cfg.Host + p + "?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true",
			Body: []byte(`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"` + rv + `","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n")})
	}
	h, err := history.Build(&cassette.File{Path: "bookmarks.yaml", Interactions: ints})
	if err != nil {
		t.Fatal(err)
	}
	srv := replayer.New(h)
	for _, p := range paths {
		for _, accept := range []string{"", partial, table} {
			name := fmt.Sprintf("bookmark kind - %s as %q - like the real apiserver - pass", p, accept)
			t.Run(name, func(t *testing.T) {
				want, _, err := firstBookmarkOf(rt, cfg.Host, p, accept)
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := firstBookmarkOf(srv.Transport(), "http://replay.invalid", p, accept)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("got %s, want %s (the real apiserver's)", got, want)
				}
				t.Logf("the real apiserver's and the replay's: %s", got)
			})
		}
	}
}
