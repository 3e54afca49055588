package replayer

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// listHistory is the history the LIST tests answer from. Its ConfigMaps,
// by resourceVersion:
//   - 1008: the initial state: a/one, a/two, a/three, b/one, b/two; app=x
//     on a/one and b/one;
//   - 1009: a/one modified;
//   - 1010: b/two deleted;
//   - 1011: a/four added;
//   - 1012: the configmaps watch ends with a bookmark (a namespace was
//     added then).
//
// Positions: 0 = 1008, 1 = 1009, 2 = 1010, 3 = 1011 (named 1012).
func listHistory(t *testing.T) *history.History {
	t.Helper()
	b := synth.NewBuilder()
	cm := func(ns, name string, labels map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
	}
	x := map[string]string{"app": "x"}
	aOne, bTwo := cm("a", "one", x), cm("b", "two", nil)
	for _, o := range []*corev1.ConfigMap{aOne, cm("a", "two", nil), cm("a", "three", nil), cm("b", "one", x), bTwo} {
		b.Add(o) // 1001..1005
	}
	b.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}})                    // 1006
	b.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "b"}})                    // 1007
	b.Add(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web"}}) // 1008
	b.Snapshot()
	aOne.Data = map[string]string{"k": "v"}
	b.Update(aOne)                                                     // 1009
	b.Delete(bTwo)                                                     // 1010
	b.Add(cm("a", "four", nil))                                        // 1011
	b.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "c"}}) // 1012
	h, err := b.History()
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	return h
}

// newTestServer returns a server over listHistory that answers a too
// large resourceVersion at once.
func newTestServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	s := New(listHistory(t), opts...)
	s.opts.tooLargeWait = 0
	return s
}

func get(s *Server, target, accept string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}

// answer is a LIST answer or a Status, decoded.
type answer struct {
	Kind     string `json:"kind"`
	Metadata struct {
		ResourceVersion    string `json:"resourceVersion"`
		Continue           string `json:"continue"`
		RemainingItemCount *int64 `json:"remainingItemCount"`
	} `json:"metadata"`
	Items []struct {
		Kind       string            `json:"kind"`
		APIVersion string            `json:"apiVersion"`
		Metadata   metav1.ObjectMeta `json:"metadata"`
	} `json:"items"`
	Code    int                   `json:"code"`
	Reason  metav1.StatusReason   `json:"reason"`
	Message string                `json:"message"`
	Details *metav1.StatusDetails `json:"details"`
}

func decode(t *testing.T, rec *httptest.ResponseRecorder) answer {
	t.Helper()
	var a answer
	if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
		t.Fatalf("answer %q: %v", rec.Body.String(), err)
	}
	return a
}

func (a answer) keys() []string {
	out := []string{}
	for _, it := range a.Items {
		k := it.Metadata.Name
		if it.Metadata.Namespace != "" {
			k = it.Metadata.Namespace + "/" + k
		}
		out = append(out, k)
	}
	return out
}

var initialKeys = []string{"a/one", "a/three", "a/two", "b/one", "b/two"}

func TestListGolden(t *testing.T) {
	t.Parallel()
	oldToken := continueToken{rv: "1008", start: "/a/three\x00"}.encode()
	tests := []struct {
		name    string
		opts    []Option
		targets []string // "+" follows the previous answer's continue token
		golden  string
	}{
		{name: "list page - first page of two - pass", targets: []string{"/api/v1/configmaps?limit=2"}, golden: "list_page.golden"},
		{name: "list chain - three pages of two - pass", targets: []string{"/api/v1/configmaps?limit=2", "+", "+"}, golden: "list_chain.golden"},
		{name: "list continue - token older than compaction - fail", opts: []Option{WithCompaction("1009")},
			targets: []string{"/api/v1/configmaps?limit=2&continue=" + oldToken}, golden: "list_continue_expired.golden"},
		{name: "get - object not found - fail", targets: []string{"/api/v1/namespaces/a/configmaps/nope"}, golden: "list_get_notfound.golden"},
		{name: "get - object found - pass", targets: []string{"/apis/apps/v1/namespaces/a/deployments/web"}, golden: "list_get.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, tt.opts...)
			var out []byte
			token := ""
			for i, target := range tt.targets {
				if target == "+" {
					if token == "" {
						t.Fatalf("request %d: got no continue token, want one", i)
					}
					target = "/api/v1/configmaps?limit=2&continue=" + token
				}
				rec := get(s, target, "application/json")
				token = decode(t, rec).Metadata.Continue
				if i > 0 {
					out = append(out, '\n')
				}
				out = append(out, wire(target, rec)...)
			}
			checkGolden(t, tt.golden, out)
		})
	}
}

func TestListTooLarge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		target string
		golden string
	}{
		{name: "list NotOlderThan - RV beyond the history - fail", target: "/api/v1/configmaps?resourceVersion=99999&resourceVersionMatch=NotOlderThan", golden: "list_too_large.golden"},
		{name: "list Exact - RV beyond the history - fail", target: "/api/v1/configmaps?resourceVersion=99999&resourceVersionMatch=Exact", golden: "list_too_large_exact.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := listHistory(t)
			synctest.Test(t, func(t *testing.T) {
				s := New(h)
				start := time.Now()
				rec := get(s, tt.target, "application/json")
				if waited := time.Since(start); waited != 3*time.Second {
					t.Errorf("waited %v, want 3s", waited)
				}
				a := decode(t, rec)
				if rec.Code != http.StatusGatewayTimeout || a.Code != http.StatusGatewayTimeout {
					t.Errorf("got code %d (status %d), want 504", rec.Code, a.Code)
				}
				if a.Reason != metav1.StatusReasonTimeout {
					t.Errorf("got reason %q, want Timeout", a.Reason)
				}
				if a.Details == nil || len(a.Details.Causes) == 0 || a.Details.Causes[0].Type != metav1.CauseTypeResourceVersionTooLarge {
					t.Errorf("got details %+v, want causes[0].type ResourceVersionTooLarge", a.Details)
				}
				if a.Details == nil || a.Details.RetryAfterSeconds != 1 {
					t.Errorf("got details %+v, want retryAfterSeconds 1", a.Details)
				}
				checkGolden(t, tt.golden, wire(tt.target, rec))
			})
		})
	}
}

// step is one request of a scenario and what its answer must be.
type step struct {
	target string // "+" appended: add the previous answer's continue token
	code   int
	rv     string   // want metadata.resourceVersion ("" to skip)
	keys   []string // want item keys (nil to skip)
	more   bool     // want a continue token
	msg    string   // want the Status message to contain this
}

func TestListSnapshots(t *testing.T) {
	t.Parallel()
	afterDelete := []string{"a/one", "a/three", "a/two", "b/one"}
	final := []string{"a/four", "a/one", "a/three", "a/two", "b/one"}
	tests := []struct {
		name  string
		opts  []Option
		steps []step
	}{
		{name: "list RV empty - fresh server - pass", steps: []step{
			{target: "/api/v1/configmaps", code: 200, rv: "1008", keys: initialKeys},
		}},
		{name: "list RV 0 - limit ignored - pass", steps: []step{
			{target: "/api/v1/configmaps?resourceVersion=0&limit=2", code: 200, rv: "1008", keys: initialKeys},
		}},
		{name: "list NotOlderThan - advances head - pass", steps: []step{
			{target: "/api/v1/configmaps?resourceVersion=1010&resourceVersionMatch=NotOlderThan", code: 200, rv: "1010", keys: afterDelete},
			{target: "/api/v1/configmaps", code: 200, rv: "1010", keys: afterDelete},
			{target: "/api/v1/configmaps?resourceVersion=0", code: 200, rv: "1010", keys: afterDelete},
		}},
		{name: "list NotOlderThan - older than head - pass", steps: []step{
			{target: "/api/v1/configmaps?resourceVersion=1011&resourceVersionMatch=NotOlderThan", code: 200, rv: "1012", keys: final},
			{target: "/api/v1/configmaps?resourceVersion=1009&resourceVersionMatch=NotOlderThan", code: 200, rv: "1012", keys: final},
			{target: "/api/v1/configmaps?resourceVersion=1009", code: 200, rv: "1012", keys: final},
		}},
		{name: "list NotOlderThan - RV before the log - pass", steps: []step{
			{target: "/api/v1/configmaps?resourceVersion=5&resourceVersionMatch=NotOlderThan", code: 200, rv: "1008", keys: initialKeys},
		}},
		{name: "list Exact - older than head - pass", steps: []step{
			{target: "/api/v1/configmaps?resourceVersion=1011&resourceVersionMatch=NotOlderThan", code: 200, rv: "1012"},
			{target: "/api/v1/configmaps?resourceVersion=1009&resourceVersionMatch=Exact", code: 200, rv: "1009", keys: initialKeys},
			{target: "/api/v1/configmaps?resourceVersion=1010&limit=10", code: 200, rv: "1010", keys: afterDelete},
			{target: "/api/v1/configmaps", code: 200, rv: "1012", keys: final},
		}},
		{name: "list Exact - newer than head - pass", steps: []step{
			{target: "/api/v1/configmaps?resourceVersion=1010&resourceVersionMatch=Exact", code: 200, rv: "1010", keys: afterDelete},
			{target: "/api/v1/configmaps", code: 200, rv: "1010", keys: afterDelete},
		}},
		{name: "list Exact - RV before the log - fail", steps: []step{
			{target: "/api/v1/configmaps?resourceVersion=5&resourceVersionMatch=Exact", code: 410, msg: listTooOldMessage},
		}},
		{name: "list Exact - older than compaction - fail", opts: []Option{WithCompaction("1010")}, steps: []step{
			{target: "/api/v1/configmaps?resourceVersion=1009&resourceVersionMatch=Exact", code: 410, msg: listTooOldMessage},
			{target: "/api/v1/configmaps?resourceVersion=1009&limit=1", code: 410, msg: listTooOldMessage},
			{target: "/api/v1/configmaps?resourceVersion=1010&resourceVersionMatch=Exact", code: 200, rv: "1010", keys: afterDelete},
		}},
		{name: "list RV - not a number - fail", steps: []step{
			{target: "/api/v1/configmaps?resourceVersion=abc", code: 400, msg: `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint`},
		}},
		{name: "list NotOlderThan - too large - fail", steps: []step{
			{target: "/api/v1/configmaps?resourceVersion=99999", code: 504, msg: "Too large resource version: 99999, current: 1012"},
		}},
		{name: "list match - without resourceVersion - fail", steps: []step{
			{target: "/api/v1/configmaps?resourceVersionMatch=NotOlderThan", code: 422, msg: "resourceVersionMatch is forbidden unless resourceVersion is provided"},
		}},
		{name: "list match - Exact at RV 0 - fail", steps: []step{
			{target: "/api/v1/configmaps?resourceVersion=0&resourceVersionMatch=Exact", code: 422, msg: `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		}},
		{name: "list match - unknown value - fail", steps: []step{
			{target: "/api/v1/configmaps?resourceVersion=1&resourceVersionMatch=Newest", code: 422, msg: "Unsupported value"},
		}},
		{name: "list sendInitialEvents - without watch - fail", steps: []step{
			{target: "/api/v1/configmaps?sendInitialEvents=true", code: 422, msg: "sendInitialEvents is forbidden for list"},
		}},
		{name: "list continue - with resourceVersion - fail", steps: []step{
			{target: "/api/v1/configmaps?limit=2", code: 200, more: true},
			{target: "/api/v1/configmaps?limit=2&resourceVersion=1008&continue=+", code: 400, msg: continueWithRVMessage},
		}},
		{name: "list continue - with resourceVersion 0 - pass", steps: []step{
			{target: "/api/v1/configmaps?limit=2", code: 200, more: true},
			{target: "/api/v1/configmaps?limit=2&resourceVersion=0&continue=+", code: 200, rv: "1008", keys: []string{"a/two", "b/one", "b/two"}},
		}},
		{name: "list continue - malformed token - fail", steps: []step{
			{target: "/api/v1/configmaps?limit=2&continue=!!!", code: 400, msg: "invalid continue token: continue key is not valid"},
			{target: "/api/v1/configmaps?limit=2&continue=" + continueToken{rv: "1008"}.encode(), code: 400, msg: "encoded start key empty"},
			{target: "/api/v1/configmaps?limit=2&continue=" + continueToken{rv: "0", start: "/a"}.encode(), code: 400, msg: "incorrect encoded start resourceVersion"},
			{target: "/api/v1/configmaps?limit=2&continue=" + continueToken{rv: "1008", start: "/a/../b"}.encode(), code: 400, msg: "continue key is not valid: /a/../b"},
		}},
		{name: "list continue - with resourceVersionMatch - fail", steps: []step{
			{target: "/api/v1/configmaps?limit=2", code: 200, more: true},
			{target: "/api/v1/configmaps?limit=2&resourceVersion=1008&resourceVersionMatch=Exact&continue=+", code: 422, msg: "resourceVersionMatch is forbidden when continue is provided"},
		}},
		{name: "list continue - head moved between pages - pass", steps: []step{
			{target: "/api/v1/configmaps?limit=2", code: 200, rv: "1008", keys: []string{"a/one", "a/three"}, more: true},
			{target: "/api/v1/configmaps?resourceVersion=1011&resourceVersionMatch=NotOlderThan", code: 200, rv: "1012", keys: final},
			{target: "/api/v1/configmaps?limit=2&continue=+", code: 200, rv: "1008", keys: []string{"a/two", "b/one"}, more: true},
			{target: "/api/v1/configmaps?limit=2&continue=+", code: 200, rv: "1008", keys: []string{"b/two"}},
		}},
		{name: "list continue - namespaced path - pass", steps: []step{
			{target: "/api/v1/namespaces/a/configmaps?limit=2", code: 200, rv: "1008", keys: []string{"a/one", "a/three"}, more: true},
			{target: "/api/v1/namespaces/a/configmaps?limit=2&continue=+", code: 200, rv: "1008", keys: []string{"a/two"}},
		}},
		{name: "list continue - expired token then its consistent token - pass", opts: []Option{WithCompaction("1009")}, steps: []step{
			{target: "/api/v1/configmaps?limit=2&continue=" + continueToken{rv: "1008", start: "/a/three\x00"}.encode(), code: 410, msg: "The provided continue parameter is too old", more: true},
			{target: "/api/v1/configmaps?limit=2&continue=+", code: 200, rv: "1009", keys: []string{"a/two", "b/one"}, more: true},
			{target: "/api/v1/configmaps?limit=2&continue=+", code: 200, rv: "1009", keys: []string{"b/two"}},
		}},
		{name: "list RV empty - compaction after the start - pass", opts: []Option{WithCompaction("1010")}, steps: []step{
			{target: "/api/v1/configmaps", code: 200, rv: "1010", keys: afterDelete},
		}},
		{name: "list continue - token beyond the history - fail", steps: []step{
			{target: "/api/v1/configmaps?limit=2&continue=" + continueToken{rv: "99999", start: "/a"}.encode(), code: 504},
		}},
		{name: "list continue - string resourceVersion in token - pass", steps: []step{
			{target: "/api/v1/configmaps?limit=2&continue=" + continueToken{rv: "1009", start: "/a/three\x00"}.encode(), code: 200, rv: "1009", keys: []string{"a/two", "b/one"}, more: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, newTestServer(t, tt.opts...), tt.steps)
		})
	}
}

func TestListSelectors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		target    string
		accept    string
		code      int
		keys      []string
		more      bool
		remaining int64 // want remainingItemCount; -1 for none
	}{
		{name: "list all namespaces - no selector - pass", target: "/api/v1/configmaps", code: 200, keys: initialKeys, remaining: -1},
		{name: "list namespaced path - no selector - pass", target: "/api/v1/namespaces/a/configmaps", code: 200, keys: []string{"a/one", "a/three", "a/two"}, remaining: -1},
		{name: "list namespaced path - limit - pass", target: "/api/v1/namespaces/b/configmaps?limit=1", code: 200, keys: []string{"b/one"}, more: true, remaining: 1},
		{name: "list namespaced path - unknown namespace - pass", target: "/api/v1/namespaces/zzz/configmaps", code: 200, keys: []string{}, remaining: -1},
		{name: "list cluster-scoped - no selector - pass", target: "/api/v1/namespaces", code: 200, keys: []string{"a", "b"}, remaining: -1},
		{name: "list cluster-scoped - namespaced path - fail", target: "/api/v1/namespaces/a/namespaces", code: 404, remaining: -1},
		{name: "list label selector - equality - pass", target: "/api/v1/configmaps?labelSelector=app%3Dx", code: 200, keys: []string{"a/one", "b/one"}, remaining: -1},
		{name: "list label selector - with limit - pass", target: "/api/v1/configmaps?labelSelector=app%3Dx&limit=1", code: 200, keys: []string{"a/one"}, more: true, remaining: -1},
		{name: "list label selector - last match on page - pass", target: "/api/v1/namespaces/b/configmaps?labelSelector=app%3Dx&limit=1", code: 200, keys: []string{"b/one"}, more: true, remaining: -1},
		{name: "list label selector - not in - pass", target: "/api/v1/namespaces/a/configmaps?labelSelector=app+notin+(x)", code: 200, keys: []string{"a/three", "a/two"}, remaining: -1},
		{name: "list label selector - unparsable - fail", target: "/api/v1/configmaps?labelSelector=app+in+(", code: 400, remaining: -1},
		{name: "list field selector - name - pass", target: "/api/v1/configmaps?fieldSelector=metadata.name%3Done", code: 200, keys: []string{"a/one", "b/one"}, remaining: -1},
		{name: "list field selector - namespace - pass", target: "/api/v1/configmaps?fieldSelector=metadata.namespace%3Db", code: 200, keys: []string{"b/one", "b/two"}, remaining: -1},
		{name: "list field selector - namespace with limit - pass", target: "/api/v1/configmaps?fieldSelector=metadata.namespace%3Db&limit=1", code: 200, keys: []string{"b/one"}, more: true, remaining: -1},
		{name: "list field selector - unsupported field - fail", target: "/api/v1/configmaps?fieldSelector=spec.foo%3Dbar", code: 400, remaining: -1},
		{name: "list accept - Table at a lower quality than JSON - pass", target: "/api/v1/configmaps", accept: "application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5,application/json", code: 200, keys: initialKeys, remaining: -1},
		{name: "list accept - CBOR only (off by default in kube-apiserver 1.37) - fail", target: "/api/v1/configmaps", accept: "application/cbor", code: 406, remaining: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t)
			accept := tt.accept
			if accept == "" {
				accept = "application/json"
			}
			rec := get(s, tt.target, accept)
			if rec.Code != tt.code {
				t.Fatalf("got code %d, want %d: %s", rec.Code, tt.code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("got Content-Type %q, want application/json", ct)
			}
			a := decode(t, rec)
			if tt.code != 200 {
				if a.Kind != "Status" || a.Code != tt.code {
					t.Errorf("got kind %q code %d, want a Status with code %d", a.Kind, a.Code, tt.code)
				}
				return
			}
			if !reflect.DeepEqual(a.keys(), tt.keys) {
				t.Errorf("got items %v, want %v", a.keys(), tt.keys)
			}
			if len(tt.keys) == 0 && !strings.Contains(rec.Body.String(), `"items":[]`) {
				t.Errorf("got body %s, want \"items\":[]", rec.Body)
			}
			if (a.Metadata.Continue != "") != tt.more {
				t.Errorf("got continue %q, want one: %v", a.Metadata.Continue, tt.more)
			}
			got := int64(-1)
			if a.Metadata.RemainingItemCount != nil {
				got = *a.Metadata.RemainingItemCount
			}
			if got != tt.remaining {
				t.Errorf("got remainingItemCount %d, want %d (-1: none)", got, tt.remaining)
			}
		})
	}
}

// runSteps makes the requests of steps in order and checks their answers.
func runSteps(t *testing.T, s *Server, steps []step) {
	t.Helper()
	token := ""
	for i, st := range steps {
		target := st.target
		if strings.HasSuffix(target, "+") {
			target = strings.TrimSuffix(target, "+") + token
		}
		rec := get(s, target, "application/json")
		a := decode(t, rec)
		if a.Metadata.Continue != "" {
			token = a.Metadata.Continue
		}
		if rec.Code != st.code {
			t.Fatalf("step %d %s: got code %d, want %d: %s", i, target, rec.Code, st.code, rec.Body)
		}
		if st.rv != "" && a.Metadata.ResourceVersion != st.rv {
			t.Errorf("step %d %s: got resourceVersion %q, want %q", i, target, a.Metadata.ResourceVersion, st.rv)
		}
		if st.keys != nil && !reflect.DeepEqual(a.keys(), st.keys) {
			t.Errorf("step %d %s: got items %v, want %v", i, target, a.keys(), st.keys)
		}
		if (a.Metadata.Continue != "") != st.more {
			t.Errorf("step %d %s: got continue %q, want one: %v", i, target, a.Metadata.Continue, st.more)
		}
		if !strings.Contains(a.Message, st.msg) {
			t.Errorf("step %d %s: got message %q, want it to contain %q", i, target, a.Message, st.msg)
		}
	}
}
