package writes

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/lwreplay/lwreplay/history"
)

// List returns the objects of namespace ns ("" for all), in key order
// (mapState is a Lister).
func (m mapState) List(ns string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		if o := m[k]; ns == "" || o.GetNamespace() == ns {
			out = append(out, o)
		}
	}
	return out, nil
}

// getOnly is a State that cannot list.
type getOnly struct{ m mapState }

// Get returns the object under key.
func (g getOnly) Get(key string) (*unstructured.Unstructured, bool) { return g.m.Get(key) }

// change renders a stored change: "EVENT name@rv", with "+deleting" when
// it has a deletionTimestamp and its finalizers.
func change(ev Event, o *unstructured.Unstructured) string {
	s := string(ev) + " " + o.GetNamespace() + "/" + o.GetName() + "@" + o.GetResourceVersion()
	if o.GetDeletionTimestamp() != nil {
		s += "+deleting" + strings.Join(o.GetFinalizers(), ",")
	}
	return s
}

// changes renders a result's stored changes in order.
func changes(res Result) []string {
	var out []string
	if res.Event != None {
		out = append(out, change(res.Event, res.Stored))
	}
	for _, c := range res.More {
		out = append(out, change(c.Event, c.Stored))
	}
	return out
}

// listItems renders a list answer: its kind, resourceVersion and items
// as "ns/name" ("+kind" when an item carries its kind).
func listItems(a *unstructured.Unstructured) []string {
	rv, _, _ := unstructured.NestedString(a.Object, "metadata", "resourceVersion")
	out := []string{a.GetKind() + "@" + rv}
	items, _, _ := unstructured.NestedSlice(a.Object, "items")
	for _, it := range items {
		u := unstructured.Unstructured{Object: it.(map[string]any)}
		s := u.GetNamespace() + "/" + u.GetName()
		if u.GetKind() != "" {
			s += "+kind"
		}
		out = append(out, s)
	}
	return out
}

// TestDeleteCollection checks a DELETE of a collection.
func TestDeleteCollection(t *testing.T) {
	cm := func(ns, name, rv, labels string, finalizers ...string) *unstructured.Unstructured {
		u := stored(t, configmaps, rv, "uid-"+ns+"-"+name, `{"metadata":{"name":"`+name+`","namespace":"`+ns+`","labels":{"app":"`+labels+`"}}}`)
		u.SetFinalizers(finalizers)
		return u
	}
	st := mapState{
		"ns/a":    cm("ns", "a", "5", "x"),
		"ns/b":    cm("ns", "b", "6", "x", "example.com/keep"),
		"ns/c":    cm("ns", "c", "7", "x"),
		"ns/d":    cm("ns", "d", "8", "y"),
		"other/a": cm("other", "a", "9", "x"),
	}
	wst := mapState{
		"ns/w":    stored(t, widgets, "5", "uid-w", `{"metadata":{"name":"w","namespace":"ns"}}`),
		"other/v": stored(t, widgets, "6", "uid-v", `{"metadata":{"name":"v","namespace":"other"}}`),
	}
	appX := labels.SelectorFromSet(labels.Set{"app": "x"})
	orphan := metav1.DeletePropagationOrphan
	firstRV, otherUID := "5", types.UID("other")
	cases := []struct {
		name    string
		st      State
		req     Request
		code    int32
		reason  string
		message string
		changes []string
		list    []string
	}{
		// store.go:1309-1451: listed, then deleted one by one in key order.
		// The finalizer keeps b, marked (store.go:1083-1101). The answer is
		// the list as listed, at the revision the write saw.
		{name: "delete collection - label selector with a finalizer-held object - pass", st: st,
			req:     Request{Kind: configmaps, Namespace: "ns", List: listOf(appX, nil, 0)},
			changes: []string{"DELETED ns/a@101", "MODIFIED ns/b@102+deletingexample.com/keep", "DELETED ns/c@103"},
			list:    []string{"ConfigMapList@50", "ns/a", "ns/b", "ns/c"}},
		{name: "delete collection - dry run stores nothing - pass", st: st,
			req:  Request{Kind: configmaps, Namespace: "ns", List: listOf(appX, nil, 0), DryRun: true},
			list: []string{"ConfigMapList@50", "ns/a", "ns/b", "ns/c"}},
		{name: "delete collection - field selector - pass", st: st,
			req:     Request{Kind: configmaps, Namespace: "ns", List: listOf(nil, fields.OneTermEqualSelector("metadata.name", "c"), 0)},
			changes: []string{"DELETED ns/c@101"}, list: []string{"ConfigMapList@50", "ns/c"}},
		// store.go:1370-1418: with a limit, one page is deleted.
		{name: "delete collection - limit deletes the first page - pass", st: st,
			req:     Request{Kind: configmaps, Namespace: "ns", List: listOf(appX, nil, 1)},
			changes: []string{"DELETED ns/a@101"}, list: []string{"ConfigMapList@50", "ns/a"}},
		{name: "delete collection - nothing selected - pass", st: st,
			req:  Request{Kind: configmaps, Namespace: "ns", List: listOf(labels.SelectorFromSet(labels.Set{"app": "none"}), nil, 0)},
			list: []string{"ConfigMapList@50"}},
		// gcFinalizers for each object (store.go:1048-1081): orphan added, none deleted.
		{name: "delete collection - orphan propagation marks each - pass", st: st,
			req:     Request{Kind: configmaps, Namespace: "other", Delete: metav1.DeleteOptions{PropagationPolicy: &orphan}},
			changes: []string{"MODIFIED other/a@101+deletingorphan"}, list: []string{"ConfigMapList@50", "other/a"}},
		// the first delete fails: nothing stored, its error answered.
		{name: "delete collection - uid precondition fails on the first - fail", st: st,
			req:  Request{Kind: configmaps, Namespace: "ns", List: listOf(appX, nil, 0), Delete: metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &otherUID}}},
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on ConfigMap "a": the UID in the precondition (other) does not match the UID in record (uid-ns-a). The object might have been deleted and then recreated`},
		// one worker (server/options/etcd.go:81): a deletes, b's precondition ends it.
		{name: "delete collection - resourceVersion precondition fails part way - fail", st: st,
			req:  Request{Kind: configmaps, Namespace: "ns", List: listOf(appX, nil, 0), Delete: metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &firstRV}}},
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on ConfigMap "b": the ResourceVersion in the precondition (5) does not match the ResourceVersion in record (6). The object might have been modified`,
			changes: []string{"DELETED ns/a@101"}},
		// installer.go:590-597: no DELETE route across namespaces for a built-in.
		{name: "delete collection - built-in across namespaces - fail", st: st,
			req:  Request{Kind: configmaps, List: listOf(appX, nil, 0)},
			code: 405, reason: "MethodNotAllowed", message: "the server does not allow this method on the requested resource"},
		// customresource_handler.go:406-408: a custom resource's deletes in every namespace.
		{name: "delete collection - custom resource across namespaces - pass", st: wst,
			req:     Request{Kind: widgets},
			changes: []string{"DELETED ns/w@101", "DELETED other/v@102"}, list: []string{"WidgetList@50", "ns/w+kind", "other/v+kind"}},
		{name: "delete collection - a state that cannot list - fail", st: getOnly{st},
			req: Request{Kind: configmaps, Namespace: "ns"}, code: 500, reason: "InternalError"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv()
			env.Revision = "50"
			c.req.Verb = DeleteCollection
			res, err := Do(c.st, env, c.req)
			if c.code != 0 && len(c.changes) == 0 {
				wantStatus(t, err, c.code, c.reason, c.message)
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got := changes(res); !slices.Equal(got, c.changes) {
				t.Errorf("changes: got %v, want %v", got, c.changes)
			}
			if c.code != 0 { // failed part way: its Status answered, the changes stored
				if res.Code != int(c.code) || res.Answer.GetKind() != "Status" || res.Answer.Object["reason"] != c.reason || res.Answer.Object["message"] != c.message {
					t.Errorf("got %d %v, want %d and a %s Status saying %q", res.Code, res.Answer.Object, c.code, c.reason, c.message)
				}
				return
			}
			if res.Code != http.StatusOK {
				t.Errorf("code: got %d, want 200", res.Code)
			}
			if got := listItems(res.Answer); !slices.Equal(got, c.list) {
				t.Errorf("answer: got %v, want %v", got, c.list)
			}
		})
	}
}

// listOf is list options selecting by ls and fs (nil: all), limited.
func listOf(ls labels.Selector, fs fields.Selector, limit int64) (lo metainternalversion.ListOptions) {
	lo.LabelSelector, lo.FieldSelector, lo.Limit = ls, fs, limit
	return lo
}

// TestParseDeleteCollection checks how Parse reads a DELETE of a
// collection (handlers/delete.go:211-323).
func TestParseDeleteCollection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, target, body string
		kind               Kind
		want               string // labels|fields|limit|dryRun|policy
		code               int32
		msg                string
	}{
		{name: "parse collection - selectors, limit and dryRun - pass", kind: configmaps,
			target: "/api/v1/namespaces/ns/configmaps?labelSelector=app%3Dx&fieldSelector=metadata.name%3Da&limit=2&dryRun=All",
			want:   "app=x|metadata.name=a|2|true|"},
		{name: "parse collection - options in the body - pass", kind: configmaps, target: "/api/v1/namespaces/ns/configmaps",
			body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan"}`, want: "||0|false|Orphan"},
		{name: "parse collection - cluster-scoped kind - pass", kind: Kind{Resource: history.Resource{Version: "v1", Resource: "nodes", Kind: "Node"}, Builtin: true},
			target: "/api/v1/nodes?labelSelector=app%3Dx", want: "app=x||0|false|"},
		{name: "parse collection - custom resource across namespaces - pass", kind: widgets, target: "/apis/example.com/v1/widgets", want: "||0|false|"},
		// the real server's messages (its transcript): the label parser's, the field label conversion's.
		{name: "parse collection - bad label selector - fail", kind: configmaps, target: "/api/v1/namespaces/ns/configmaps?labelSelector=app%3D%3D%3Dx",
			code: 400, msg: "unable to parse requirement: found '=', expected: identifier"},
		{name: "parse collection - unknown field of a built-in - fail", kind: configmaps, target: "/api/v1/namespaces/ns/configmaps?fieldSelector=data.k%3D1",
			code: 400, msg: `"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{name: "parse collection - unknown field of a custom resource - fail", kind: widgets, target: "/apis/example.com/v1/namespaces/ns/widgets?fieldSelector=spec.size%3D1",
			code: 400, msg: "field label not supported: spec.size"},
		{name: "parse collection - resourceVersionMatch without resourceVersion - fail", kind: configmaps, target: "/api/v1/namespaces/ns/configmaps?resourceVersionMatch=Exact",
			code: 422, msg: "resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{name: "parse collection - built-in across namespaces - fail", kind: configmaps, target: "/api/v1/configmaps",
			code: 405, msg: "the server does not allow this method on the requested resource"},
		{name: "parse collection - dryRun other than All - fail", kind: configmaps, target: "/api/v1/namespaces/ns/configmaps?dryRun=Some",
			code: 422, msg: `dryRun: Unsupported value: ["Some"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodDelete, tc.target, strings.NewReader(tc.body))
			if tc.body != "" {
				r.Header.Set("Content-Type", "application/json")
			}
			q, ok, err := history.ParseRequestInfo(r.URL)
			if !ok || err != nil {
				t.Fatalf("history.ParseRequestInfo(%s): got ok %v, error %v, want a resource request", tc.target, ok, err)
			}
			got, err := Parse(r, q, tc.kind)
			if tc.code != 0 {
				var se *apierrors.StatusError
				if !errors.As(err, &se) || se.ErrStatus.Code != tc.code || !strings.Contains(se.ErrStatus.Message, tc.msg) {
					t.Fatalf("got error %v, want a %d Status saying %q", err, tc.code, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got.Verb != DeleteCollection {
				t.Errorf("verb: got %s, want deletecollection", got.Verb)
			}
			pol := ""
			if p := got.Delete.PropagationPolicy; p != nil {
				pol = string(*p)
			}
			s := strings.Join([]string{selectorText(got.List.LabelSelector), selectorText(got.List.FieldSelector),
				strconv.FormatInt(got.List.Limit, 10), boolText(got.DryRun), pol}, "|")
			if s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
		})
	}
}

// selectorText is a selector's string ("" for none).
func selectorText(s interface{ String() string }) string {
	if s == nil {
		return ""
	}
	return s.String()
}
