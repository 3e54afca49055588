package writes

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// rawMapState is a mapState that is a RawState: Raw is the object's JSON.
type rawMapState struct{ mapState }

// Raw returns the JSON of the object under key.
func (m rawMapState) Raw(key string) ([]byte, bool) {
	o, ok := m.mapState[key]
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(o.Object)
	return b, err == nil
}

// TestTrackMemo checks that a non-apply write whose field manager's
// answer is held (trackMemo) answers as one without: the first of two
// same writes on a RawState holds the answer, the second, an hour later,
// reuses it, and both answer as the write on a State without Raw at the
// same time (the changed managedFields entry stamped then, the others
// kept).
func TestTrackMemo(t *testing.T) {
	const managed = `"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}]`
	newState := func() mapState {
		return mapState{
			"memo/c": stored(t, configmaps, "5", "uid-c", `{"metadata":{"name":"c","namespace":"memo","labels":{"l":"1"},`+managed+`},"data":{"k":"v"}}`),
			"memo/d": stored(t, deployments, "6", "uid-d", `{"metadata":{"name":"d","namespace":"memo","generation":2},"spec":{"replicas":1},"status":{"replicas":1}}`),
			"memo/w": stored(t, widgets, "7", "uid-w", `{"metadata":{"name":"w","namespace":"memo","generation":3},"spec":{"x":1},"status":{"s":1}}`),
		}
	}
	cases := []struct {
		name  string
		req   Request
		warns bool // the write has a warning
	}{
		{name: "track memo - configmap update by another manager - pass", req: Request{Verb: Update, Kind: configmaps, Namespace: "memo", Name: "c", FieldManager: "memo-test",
			Body: []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","labels":{"l":"2"}},"data":{"k":"w"}}`), ContentType: "application/json"}},
		{name: "track memo - configmap update by its manager - pass", req: Request{Verb: Update, Kind: configmaps, Namespace: "memo", Name: "c", FieldManager: "kubectl",
			Body: []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"},"data":{"k":"w","n":"1"}}`), ContentType: "application/json"}},
		{name: "track memo - configmap merge patch - pass", req: Request{Verb: Patch, Kind: configmaps, Namespace: "memo", Name: "c", UserAgent: "memo-test/v1",
			PatchType: types.MergePatchType, Body: []byte(`{"metadata":{"labels":{"m":"1"}},"data":{"k":"p"}}`)}},
		{name: "track memo - configmap JSON patch - pass", req: Request{Verb: Patch, Kind: configmaps, Namespace: "memo", Name: "c",
			PatchType: types.JSONPatchType, Body: []byte(`[{"op":"add","path":"/data/j","value":"1"}]`)}},
		{name: "track memo - configmap create - pass", req: Request{Verb: Create, Kind: configmaps, Namespace: "memo", FieldManager: "memo-test",
			Body: []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"new"},"data":{"k":"v"}}`), ContentType: "application/json"}},
		{name: "track memo - deployment status update - pass", req: Request{Verb: Update, Kind: deployments, Namespace: "memo", Name: "d", Subresource: "status",
			Body: []byte(`{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d","resourceVersion":"6"},"status":{"replicas":2}}`), ContentType: "application/json"}},
		{name: "track memo - configmap update with an unknown field - pass, its warning kept", req: Request{Verb: Update, Kind: configmaps, Namespace: "memo", Name: "c",
			FieldValidation: "Warn", Body: []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"},"data":{"k":"x"},"extra":1}`), ContentType: "application/json"}, warns: true},
		{name: "track memo - configmap strategic merge patch - pass", req: Request{Verb: Patch, Kind: configmaps, Namespace: "memo", Name: "c",
			PatchType: types.StrategicMergePatchType, Body: []byte(`{"data":{"s":"1"}}`)}},
		{name: "track memo - lease created by a PUT - pass", req: Request{Verb: Update, Kind: leases, Namespace: "memo", Name: "l",
			Body: []byte(`{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"l"},"spec":{"holderIdentity":"a"}}`), ContentType: "application/json"}},
		{name: "track memo - widget update - pass", req: Request{Verb: Update, Kind: widgets, Namespace: "memo", Name: "w",
			Body: []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"7"},"spec":{"x":2}}`), ContentType: "application/json"}},
	}
	later := testNow.Add(time.Hour)
	atLater := func() Env { e := testEnv(); e.Now = later; return e }
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := rawMapState{newState()}
			key := ""
			if c.req.Verb != Create {
				key = Key(c.req.Namespace, c.req.Name)
			}
			mk := trackKeyOf(st, c.req, key)
			if mk == nil {
				t.Fatal("trackKeyOf: got nil, want a key on a RawState")
			}
			if tracks.held(mk) {
				t.Fatal("before the first write: got an answer held, want none")
			}
			if _, err := Do(st, testEnv(), c.req); err != nil {
				t.Fatalf("first write: got error %v, want none", err)
			}
			if !tracks.held(mk) {
				t.Fatal("after the first write: got no answer held, want one")
			}
			reused, err := Do(rawMapState{newState()}, atLater(), c.req)
			if err != nil {
				t.Fatalf("second write: got error %v, want none", err)
			}
			fresh, err := Do(newState(), atLater(), c.req)
			if err != nil {
				t.Fatalf("write without Raw: got error %v, want none", err)
			}
			if reused.Code != fresh.Code || reused.Event != fresh.Event || !equality.Semantic.DeepEqual(answerOf(reused), answerOf(fresh)) {
				t.Errorf("reused: got %d %s %v, want as without Raw: %d %s %v", reused.Code, reused.Event, answerOf(reused), fresh.Code, fresh.Event, answerOf(fresh))
			}
			if (len(fresh.Warnings) > 0) != c.warns {
				t.Errorf("warnings without Raw: got %q, want some: %v", fresh.Warnings, c.warns)
			}
			if !slices.Equal(reused.Warnings, fresh.Warnings) {
				t.Errorf("warnings: got %q, want as without Raw: %q", reused.Warnings, fresh.Warnings)
			}
		})
	}
}

// TestTrackMemoInvalid checks that a held write whose object failed
// validation fails it again when reused: only a write that stored its
// object marks it checked.
func TestTrackMemoInvalid(t *testing.T) {
	st := rawMapState{mapState{"memo/v": stored(t, configmaps, "5", "uid-v", `{"metadata":{"name":"v","namespace":"memo"},"data":{"k":"v"}}`)}}
	req := Request{Verb: Update, Kind: configmaps, Namespace: "memo", Name: "v", FieldManager: "memo-invalid",
		Body: []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"v","labels":{"bad key!":"x"}},"data":{"k":"w"}}`), ContentType: "application/json"}
	for round := range 2 {
		_, err := Do(st, testEnv(), req)
		if !apierrors.IsInvalid(err) {
			t.Fatalf("round %d: got %v, want 422 Invalid (the label key)", round, err)
		}
		if mk := trackKeyOf(st, req, "memo/v"); round == 0 && !tracks.held(mk) {
			t.Fatal("after the first write: got no answer held, want one (held before storage checks it)")
		}
	}
}

// held reports whether an answer is held for mk.
func (c *trackMemo) held(mk *trackKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[*mk]
	return ok
}

// answerOf is res's answer's content (nil for none).
func answerOf(res Result) map[string]any {
	if res.Answer == nil {
		return nil
	}
	return res.Answer.Object
}

// TestTrackKeyOf checks which states and requests get a trackKey.
func TestTrackKeyOf(t *testing.T) {
	t.Parallel()
	st := mapState{"memo/c": stored(t, configmaps, "5", "uid-c", `{"metadata":{"name":"c","namespace":"memo"}}`)}
	req := Request{Verb: Update, Kind: configmaps, Namespace: "memo", Name: "c", Body: []byte(`{}`)}
	if k := trackKeyOf(st, req, "memo/c"); k != nil {
		t.Errorf("trackKeyOf - a State without Raw - got a key, want none")
	}
	k := trackKeyOf(rawMapState{st}, req, "memo/c")
	if k == nil || !k.hasOld || k.old == "" {
		t.Fatalf("trackKeyOf - a RawState, a stored object - got %+v, want a key holding its JSON", k)
	}
	other := req
	other.Body = []byte(`{"data":{}}`)
	if o := trackKeyOf(rawMapState{st}, other, "memo/c"); o == nil || *o == *k {
		t.Errorf("trackKeyOf - another body - got the same key, want another")
	}
	defaulted := req
	defaulted.Kind.Defaulter = funcDefaulter(func(runtime.Object) {})
	if d := trackKeyOf(rawMapState{st}, defaulted, "memo/c"); d != nil {
		t.Errorf("trackKeyOf - a defaulter that is no comparable value - got a key, want none")
	}
}

// funcDefaulter is a defaulter that is a func: no comparable value.
type funcDefaulter func(runtime.Object)

// Default calls f.
func (f funcDefaulter) Default(o runtime.Object) { f(o) }

// TestReusable checks when the field manager's answer may be reused at
// another time: not when an entry it kept bears the second it answered
// in, for it may have stamped it afresh.
func TestReusable(t *testing.T) {
	t.Parallel()
	entry := func(manager, at string) string {
		return `{"manager":"` + manager + `","operation":"Update","apiVersion":"v1","time":"` + at + `","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}`
	}
	objWith := func(entries ...string) *unstructured.Unstructured {
		return obj(t, configmaps, `{"metadata":{"name":"c","managedFields":[`+strings.Join(entries, ",")+`]}}`)
	}
	from := time.Date(2026, 1, 2, 3, 4, 5, 500, time.UTC)
	to := from.Add(time.Millisecond)
	tests := []struct {
		name     string
		old, out *unstructured.Unstructured
		want     bool
	}{
		{"reusable - an entry stamped afresh - pass", objWith(entry("a", "2026-01-02T03:00:00Z")), objWith(entry("a", "2026-01-02T03:04:05Z")), true},
		{"reusable - an entry kept from an earlier second - pass", objWith(entry("a", "2026-01-02T03:00:00Z")), objWith(entry("a", "2026-01-02T03:00:00Z"), entry("b", "2026-01-02T03:04:05Z")), true},
		{"reusable - an entry kept at the second of the answer - fail", objWith(entry("a", "2026-01-02T03:04:05Z")), objWith(entry("a", "2026-01-02T03:04:05Z")), false},
		{"reusable - no managedFields - pass", objWith(), objWith(), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := reusable(tc.old, tc.out, from, to); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
