package capture

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

// restConfigFor returns a rest config that reaches srv in-process.
func restConfigFor(srv *replayer.Server) *rest.Config {
	return &rest.Config{Host: "http://replay.invalid", Transport: srv.Transport()}
}

// mixedHistory holds configmaps, pods and deployments (built) and the
// widgets of a custom resource (testdata/widgets.yaml).
func mixedHistory(t *testing.T) *history.History {
	t.Helper()
	b := synth.NewBuilder()
	b.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"}})
	b.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pod"}})
	b.Add(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "deploy"}})
	built, err := b.Cassette(synth.CassetteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	built.Path = "built.yaml"
	widgets, err := cassette.Load("testdata/widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// one recording: the built traffic, then the widgets'
	built.Interactions = append(built.Interactions, widgets.Interactions...)
	h, err := history.Build(built)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// generatedHistory is synth's realistic history of 15 configmaps and 15
// pods in two namespaces, then 60 changes.
func generatedHistory(t *testing.T) *history.History {
	t.Helper()
	f, err := synth.Generate(synth.GenerateOptions{Objects: 30, Events: 60, Seed: 3, Namespaces: 2})
	if err != nil {
		t.Fatal(err)
	}
	f.Path = "upstream.yaml"
	h, err := history.Build(f)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// lastEventRV returns the resourceVersion of l's final state's newest change.
func lastEventRV(l *history.Log) string {
	if l.End() == 0 {
		return l.StartRV
	}
	return l.Events[l.End()-1].RV()
}

// compareFinalStates reports how got's final state of each of want's
// resources differs from want's: keys, resourceVersions, UIDs and content.
func compareFinalStates(t *testing.T, want, got *history.History) {
	t.Helper()
	for _, wl := range want.Logs {
		gl, ok := got.Log(wl.Resource)
		if !ok {
			t.Errorf("resource %s: got no log, want one", wl.Resource)
			continue
		}
		ws, gs := wl.StateAt(wl.End()), gl.StateAt(gl.End())
		if len(gs) != len(ws) {
			t.Errorf("resource %s: got %d objects in the final state, want %d", wl.Resource, len(gs), len(ws))
			continue
		}
		for i := range ws {
			w, g := ws[i], gs[i]
			if g.Key() != w.Key() || g.ResourceVersion != w.ResourceVersion || g.UID != w.UID {
				t.Errorf("resource %s object %d: got %s rv %s uid %s, want %s rv %s uid %s",
					wl.Resource, i, g.Key(), g.ResourceVersion, g.UID, w.Key(), w.ResourceVersion, w.UID)
				continue
			}
			var wv, gv any
			if json.Unmarshal(w.Raw, &wv) != nil || json.Unmarshal(g.Raw, &gv) != nil || !reflect.DeepEqual(wv, gv) {
				t.Errorf("resource %s object %s: got content %s, want %s", wl.Resource, w.Key(), g.Raw, w.Raw)
			}
		}
	}
}

// requestLog records the URLs of the requests a transport sends.
type requestLog struct {
	mu   sync.Mutex
	urls []*url.URL
	rt   http.RoundTripper
}

// RoundTrip logs req's URL and sends it on.
func (l *requestLog) RoundTrip(req *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.urls = append(l.urls, req.URL)
	l.mu.Unlock()
	return l.rt.RoundTrip(req)
}

// count returns how many requests for resource's collection match pred.
func (l *requestLog) count(resource string, pred func(q url.Values) bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, u := range l.urls {
		if strings.HasSuffix(u.Path, "/"+resource) && pred(u.Query()) {
			n++
		}
	}
	return n
}

// logRequests makes cfg's transport log its requests in the returned log.
func logRequests(cfg *rest.Config) *requestLog {
	l := &requestLog{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		l.rt = rt
		return l
	})
	return l
}
