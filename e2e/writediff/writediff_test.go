package writediff

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestNormalizerText(t *testing.T) {
	n := newNormalizer("wd-update-0a1b2c")
	n.noteRV("4711")
	tests := []struct {
		name, in, want string
	}{
		{"text - namespace - pass", `configmaps "a" in wd-update-0a1b2c`, `configmaps "a" in <ns>`},
		{"text - uid - pass", "UID in record (0d9c6f6e-1f0b-4c52-9a0e-2b7d6f3c9a11)", "UID in record (<uid>)"},
		{"text - resourceVersion seen - pass", "too old resource version: 4711", "too old resource version: <rv>"},
		{"text - number not a resourceVersion - pass", "replicas: 47110", "replicas: 47110"},
		{"text - generated name - pass", `configmap "gen-x7k2p" created`, `configmap "gen-<rand>" created`},
		{"text - time - pass", "deleted at 2026-12-01T23:05:56Z", "deleted at <time>"},
		{"text - nothing particular - pass", `configmaps "a" not found`, `configmaps "a" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := n.text(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestNormalizerAborted checks that a response the server aborted reads
// alike over HTTP/2 and HTTP/1, and that no answered error does.
func TestNormalizerAborted(t *testing.T) {
	n := newNormalizer("wd-patch-0a1b2c")
	tests := []struct {
		name string
		in   Outcome
		want string
	}{
		{"aborted - HTTP/2 stream reset - pass", Outcome{Code: -1, Message: `Patch "https://127.0.0.1:40311/api/v1/namespaces/wd-patch-0a1b2c/configmaps/a": stream error: stream ID 241; INTERNAL_ERROR; received from peer`}, abortedMessage},
		{"aborted - HTTP/1 connection closed - pass", Outcome{Code: -1, Message: `Patch "http://127.0.0.1:35011/api/v1/namespaces/wd-patch-0a1b2c/configmaps/a": EOF`}, abortedMessage},
		{"aborted - an answered Status - fail, kept", Outcome{Code: 422, Message: `the server rejected our request: EOF`}, `the server rejected our request: EOF`},
		{"aborted - another transport error - fail, kept", Outcome{Code: -1, Message: `Patch "http://h/a": dial tcp: connection refused`}, `Patch "http://h/a": dial tcp: connection refused`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.in
			n.outcome(&o)
			if o.Message != tt.want {
				t.Errorf("got %q, want %q", o.Message, tt.want)
			}
		})
	}
}

// object is a configmap with the given metadata.
func object(uid, rv, created string, data map[string]any) *unstructured.Unstructured {
	md := map[string]any{"name": "a", "uid": uid, "resourceVersion": rv}
	if created != "" {
		md["creationTimestamp"] = created
	}
	o := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md}
	if data != nil {
		o["data"] = data
	}
	return &unstructured.Unstructured{Object: o}
}

func TestObserve(t *testing.T) {
	const t0, t1 = "2026-12-01T23:00:00Z", "2026-12-01T23:00:01Z"
	v1 := map[string]any{"k": "v1"}
	tests := []struct {
		name          string
		before, obj   *unstructured.Unstructured
		uid, rv, crea string
		data          string
	}{
		{"observe - new object - pass", nil, object("u1", "10", t0, v1), "set", "set", "set", "added"},
		{"observe - update kept uid, greater RV - pass", object("u1", "10", t0, v1), object("u1", "12", t0, map[string]any{"k": "v2"}), "kept", "greater", "kept", "changed"},
		{"observe - no-op kept RV - pass", object("u1", "10", t0, v1), object("u1", "10", t0, v1), "kept", "same", "kept", "same"},
		{"observe - recreated: uid and time changed - fail", object("u1", "10", t0, v1), object("u2", "9", t1, nil), "changed", "less", "changed", "removed"},
		{"observe - dry-run create: no RV - pass", nil, object("u1", "", t0, v1), "set", "missing", "set", "added"},
		{"observe - opaque RV - fail", object("u1", "a", t0, v1), object("u1", "b", t0, v1), "kept", "opaque", "kept", "same"},
		{"observe - no uid, no time - fail", nil, object("", "3", "", v1), "missing", "set", "missing", "added"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := observe(tt.before, tt.obj)
			got := []string{m.UID, m.RV, m.Created, m.Fields["data"]}
			want := []string{tt.uid, tt.rv, tt.crea, tt.data}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got uid, rv, created, data %v, want %v", got, want)
			}
		})
	}
	if m := observe(nil, nil); m != nil {
		t.Errorf("observe of no object: got %+v, want nil", m)
	}
}

func TestOutcomeOf(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	tests := []struct {
		name   string
		err    error
		code   int
		reason string
	}{
		{"outcomeOf - no error - pass", nil, 200, ""},
		{"outcomeOf - conflict - fail", apierrors.NewConflict(gr, "a", errors.New("modified")), 409, "Conflict"},
		{"outcomeOf - not found - fail", apierrors.NewNotFound(gr, "a"), 404, "NotFound"},
		{"outcomeOf - not a Status - fail", errors.New("connection refused"), -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := outcomeOf(tt.err)
			if o.Code != tt.code || o.Reason != tt.reason {
				t.Errorf("got %d %q, want %d %q", o.Code, o.Reason, tt.code, tt.reason)
			}
		})
	}
}

// transcript is a one-sequence transcript with the given second step.
func transcript(step Outcome, events ...string) Transcript {
	return Transcript{Sequences: []SequenceTranscript{{
		Name:   "update",
		Steps:  []Outcome{{Step: "create namespace", Code: 201}, step},
		Events: events, EventRVs: "increasing",
	}}}
}

func TestDiff(t *testing.T) {
	base := Outcome{Step: "update stale RV", Code: 409, Reason: "Conflict", Object: &Meta{Name: "a", UID: "kept", RV: "same", Created: "kept"}}
	changed := func(fn func(*Outcome)) Outcome {
		o := base
		m := *base.Object
		o.Object = &m
		fn(&o)
		return o
	}
	tests := []struct {
		name      string
		want, got Transcript
		lines     []string
	}{
		{"Diff - equal transcripts - pass", transcript(base, "ADDED a"), transcript(base, "ADDED a"), nil},
		{"Diff - code and reason differ - fail", transcript(base), transcript(changed(func(o *Outcome) { o.Code, o.Reason = 200, "" })), []string{
			"update / update stale RV: code: got 200, want 409",
			"update / update stale RV: reason: got nothing, want \"Conflict\"",
		}},
		{"Diff - RV rule differs - fail", transcript(base), transcript(changed(func(o *Outcome) { o.Object.RV = "greater" })), []string{
			"update / update stale RV: object.rv: got \"greater\", want \"same\"",
		}},
		{"Diff - missing step - fail", transcript(base), Transcript{Sequences: []SequenceTranscript{{Name: "update", Steps: []Outcome{{Step: "create namespace", Code: 201}}, EventRVs: "increasing"}}}, []string{
			"update / update stale RV: got no step, want one",
		}},
		{"Diff - events differ - fail", transcript(base, "ADDED a", "MODIFIED a"), transcript(base, "ADDED a"), []string{
			"update / watch: events.1: got nothing, want \"MODIFIED a\"",
		}},
		{"Diff - missing sequence - fail", transcript(base), Transcript{}, []string{"sequence update: got none, want 2 steps"}},
		{"Diff - setup failed - fail", Transcript{}, Transcript{Setup: &Outcome{Step: "create CRD", Code: 405}}, []string{
			"setup: code: got 405, want nothing",
			"setup: step: got \"create CRD\", want nothing",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(tt.want, tt.got)
			if !reflect.DeepEqual(got, tt.lines) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.lines, "\n"))
			}
		})
	}
}

func TestTranscriptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	exit := 1
	want := transcript(Outcome{Step: "kubectl replace", Exit: &exit, Reason: "Conflict", Shown: map[string]string{"data": `{"k":"v1"}`}}, "ADDED a")
	if err := WriteTranscript(path, want); err != nil {
		t.Fatalf("WriteTranscript: got error %v, want none", err)
	}
	got, err := ReadTranscript(path)
	if err != nil {
		t.Fatalf("ReadTranscript: got error %v, want none", err)
	}
	if d := Diff(want, got); d != nil {
		t.Errorf("round trip: got differences %v, want none", d)
	}
	if got.FirstCode() != 201 {
		t.Errorf("FirstCode: got %d, want 201", got.FirstCode())
	}
	if _, err := ReadTranscript(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Errorf("ReadTranscript of a missing file: got no error, want one")
	}
}

func TestMergePatch(t *testing.T) {
	doc := map[string]any{"data": map[string]any{"k": "v1", "x": "y"}, "metadata": map[string]any{"finalizers": []any{"f"}}}
	patch := map[string]any{"data": map[string]any{"k": "v2", "x": nil}, "metadata": map[string]any{"finalizers": nil}}
	got := mergePatch(doc, patch)
	want := map[string]any{"data": map[string]any{"k": "v2"}, "metadata": map[string]any{}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mergePatch - keys set and removed - pass: got %v, want %v", got, want)
	}
}

func TestSequencesWellFormed(t *testing.T) {
	names := map[string]bool{}
	for _, seq := range Sequences() {
		if names[seq.Name] {
			t.Errorf("sequence %s: got it twice, want unique names", seq.Name)
		}
		names[seq.Name] = true
		steps := map[string]bool{}
		for _, s := range seq.Steps {
			if steps[s.Name] {
				t.Errorf("sequence %s step %s: got it twice, want unique names", seq.Name, s.Name)
			}
			steps[s.Name] = true
			if _, ok := resources[s.Resource]; !ok {
				t.Errorf("sequence %s step %s: got resource %q, want one of the harness's", seq.Name, s.Name, s.Resource)
			}
			if s.Via != Kubectl {
				if _, err := prepare(s, "ns", nil, "1"); err != nil {
					t.Errorf("sequence %s step %s: prepare: got error %v, want none", seq.Name, s.Name, err)
				}
			}
		}
	}
}
