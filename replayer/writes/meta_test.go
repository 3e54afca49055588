package writes

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/lwreplay/lwreplay/history"
)

// The kinds the tests write: a built-in without status, a built-in with
// it, and a custom resource with it.
var (
	configmaps  = Kind{Resource: history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}, Builtin: true}
	deployments = Kind{Resource: history.Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}, Builtin: true, Status: true}
	widgets     = Kind{Resource: history.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}, Status: true}
)

// testNow is the tests' clock.
var testNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// mapState is a State over a map.
type mapState map[string]*unstructured.Unstructured

// Get returns the object under key.
func (m mapState) Get(key string) (*unstructured.Unstructured, bool) {
	o, ok := m[key]
	return o, ok
}

// testEnv is an Env whose RVs count from 100, UIDs from uid-1 and
// suffixes from the given list (then "zzzzz").
func testEnv(suffixes ...string) Env {
	rv, uid := 100, 0
	return Env{
		Now:    testNow,
		NextRV: func() string { rv++; return fmt.Sprint(rv) },
		NewUID: func() types.UID { uid++; return types.UID(fmt.Sprintf("uid-%d", uid)) },
		Suffix: func() string {
			if len(suffixes) == 0 {
				return "zzzzz"
			}
			s := suffixes[0]
			suffixes = suffixes[1:]
			return s
		},
	}
}

// obj builds an object of k from its JSON form.
func obj(t *testing.T, k Kind, js string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatal(err)
	}
	m["apiVersion"], m["kind"] = k.Resource.GroupVersion(), k.Resource.Kind
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(b); err != nil { // numbers as int64, as the engine decodes them
		t.Fatal(err)
	}
	return u
}

// stored is obj at the given rv, uid and creation time testNow, as the
// state holds it.
func stored(t *testing.T, k Kind, rv, uid, js string) *unstructured.Unstructured {
	u := obj(t, k, js)
	u.SetResourceVersion(rv)
	u.SetUID(types.UID(uid))
	u.SetCreationTimestamp(metaTime(testNow.Add(-time.Hour)))
	return u
}

// body is u's JSON.
func body(t *testing.T, u *unstructured.Unstructured) []byte {
	t.Helper()
	b, err := u.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantStatus checks err is a StatusError with code, reason and message
// (message "" is not checked).
func wantStatus(t *testing.T, err error, code int32, reason, message string) {
	t.Helper()
	se, ok := err.(*apierrors.StatusError)
	if !ok {
		t.Fatalf("got error %v (%T), want a StatusError %d", err, err, code)
	}
	s := se.ErrStatus
	if s.Code != code || string(s.Reason) != reason {
		t.Errorf("got %d %q, want %d %q (%s)", s.Code, s.Reason, code, reason, s.Message)
	}
	if message != "" && s.Message != message {
		t.Errorf("got message %q, want %q", s.Message, message)
	}
}

// verify checks a case's outcome: the StatusError of code, reason and
// message when code is not 0, else no error and check's conditions on res.
func verify(t *testing.T, res Result, err error, code int32, reason, message string, check func(*testing.T, Result)) {
	t.Helper()
	if code != 0 {
		wantStatus(t, err, code, reason, message)
		return
	}
	if err != nil {
		t.Fatalf("got %v, want no error", err)
	}
	check(t, res)
}

// TestMeta checks the shared metadata rules.
func TestMeta(t *testing.T) {
	cm := obj(t, configmaps, `{"metadata":{"name":"a","namespace":"other"}}`)
	if err := ensureNamespace(configmaps, "ns", cm); err == nil {
		t.Errorf("ensureNamespace - namespace differs - fail: got nil, want BadRequest")
	}
	cm.SetNamespace("")
	if err := ensureNamespace(configmaps, "ns", cm); err != nil || cm.GetNamespace() != "ns" {
		t.Errorf("ensureNamespace - no namespace - pass: got %v %q, want nil ns", err, cm.GetNamespace())
	}
	if got, want := storageKey(widgets, "ns", "w"), "/registry/example.com/widgets/ns/w"; got != want {
		t.Errorf("storageKey - custom resource - pass: got %q, want %q", got, want)
	}
	if got, want := storageKey(configmaps, "ns", "a"), "/registry/configmaps/ns/a"; got != want {
		t.Errorf("storageKey - built-in - pass: got %q, want %q", got, want)
	}
	a := obj(t, configmaps, `{"metadata":{"name":"a","resourceVersion":"1"}}`)
	b := obj(t, configmaps, `{"metadata":{"name":"a","resourceVersion":"2"}}`)
	if !sameStored(a, b) {
		t.Errorf("sameStored - only the RV differs - pass: got false, want true")
	}
	b.SetLabels(map[string]string{"x": "y"})
	if sameStored(a, b) {
		t.Errorf("sameStored - labels differ - fail: got true, want false")
	}
	if !tracksGeneration(deployments) || !tracksGeneration(widgets) || tracksGeneration(configmaps) {
		t.Errorf("tracksGeneration - deployments, widgets, configmaps - pass: got %v %v %v, want true true false",
			tracksGeneration(deployments), tracksGeneration(widgets), tracksGeneration(configmaps))
	}
	if rvSet("0") || !rvSet("5") {
		t.Errorf("rvSet - 0 and 5 - pass: got %v %v, want false true", rvSet("0"), rvSet("5"))
	}
}

// metaTime is t as metadata holds it.
func metaTime(t time.Time) metav1.Time { return metav1.NewTime(t) }
