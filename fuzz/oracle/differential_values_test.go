package oracle

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// outcomeOf is a FinalState of the objects objs holds, by resource and key:
// their JSON.
func outcomeOf(objs map[string]map[string]string) FinalState {
	out := FinalState{Resources: map[string]*ResourceFinalState{}}
	for res, byKey := range objs {
		ro := &ResourceFinalState{Objects: map[string][]byte{}, Added: map[string]int{}, Deleted: map[string]int{}, Disturbed: map[string]bool{}}
		for k, j := range byKey {
			ro.Objects[k] = []byte(j)
		}
		out.Resources[res] = ro
	}
	return out
}

// annotated is a configmap's JSON with annotation at=at and data v.
func annotated(at, v string) string {
	return fmt.Sprintf(`{"metadata":{"name":"a","namespace":"ns","annotations":{"example.com/at":%q}},"data":{"v":%q}}`, at, v)
}

// event is an Event's JSON about ns/a, with reason.
func event(name, reason string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"ns"},"involvedObject":{"kind":"ConfigMap","name":"a"},"reason":%q,"count":1}`, name, reason)
}

// child is the JSON of configmap name owned by configmap "owner" of uid,
// with data v.
func child(name, uid, v string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"ns","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":%q,"controller":true}]},"data":{"v":%q,"self":%q}}`,
		name, uid, v, name)
}

// TestValueMasks shows each of same-outcome's masks by value and by owner
// at work. They are Events, timestamps anywhere, names after a recreated
// owner's UID, and a user's fuzz.Options.Masks. Each hides the artefact on
// a clean run. Each hides nothing a planted bug beside it needs.
func TestValueMasks(t *testing.T) {
	t.Parallel()
	user := DefaultMaskSet().Merge(MaskSet(Mask{Resource: "configmaps", Path: "data.token", Why: "a random token the user's controller draws"},
		Mask{Resource: "widgets.example.com", Path: "", Why: "the user's cache of a remote state"}))
	type objs = map[string]map[string]string
	tests := []struct {
		name     string
		ref, got objs
		masks    Masks
		want     []string // DiffError.What; nil: the outcomes are equal
	}{
		{name: "events - the run logged an event the reference did not - pass",
			ref: objs{"configmaps": {"ns/a": annotated("x", "1")}},
			got: objs{"configmaps": {"ns/a": annotated("x", "1")}, "events": {"ns/a.1876": event("a.1876", "Retried")}}},
		{name: "events - other events, events.k8s.io - pass",
			ref: objs{"events.events.k8s.io": {"ns/a.1": event("a.1", "Created")}},
			got: objs{"events.events.k8s.io": {"ns/a.2": event("a.2", "Created"), "ns/a.3": event("a.3", "Conflict")}}},
		{name: "events - a planted bug beside an extra event - fail",
			ref:  objs{"configmaps": {"ns/a": annotated("x", "1")}},
			got:  objs{"configmaps": {"ns/a": annotated("x", "2")}, "events": {"ns/a.1876": event("a.1876", "Retried")}},
			want: []string{"configmaps data.v"}},
		{name: "timestamps - an annotation holding time.Now() a second later - pass",
			ref: objs{"configmaps": {"ns/a": annotated("2026-01-01T00:00:00Z", "1")}},
			got: objs{"configmaps": {"ns/a": annotated("2026-01-01T00:00:01Z", "1")}}},
		{name: "timestamps - fractional seconds and an offset - pass",
			ref: objs{"configmaps": {"ns/a": annotated("2026-01-01T00:00:00.123456Z", "1")}},
			got: objs{"configmaps": {"ns/a": annotated("2026-01-01T02:00:09.5+02:00", "1")}}},
		{name: "timestamps - a planted bug beside the timestamp - fail",
			ref: objs{"configmaps": {"ns/a": annotated("2026-01-01T00:00:00Z", "1")}},
			got: objs{"configmaps": {"ns/a": annotated("2026-01-01T00:00:01Z", "2")}}, want: []string{"configmaps data.v"}},
		{name: "timestamps - a timestamp became no timestamp - fail",
			ref: objs{"configmaps": {"ns/a": annotated("2026-01-01T00:00:00Z", "1")}},
			got: objs{"configmaps": {"ns/a": annotated("never", "1")}}, want: []string{`configmaps metadata.annotations["example.com/at"]`}},
		{name: "timestamps - no RFC 3339 (time.Time.String) - fail",
			ref: objs{"configmaps": {"ns/a": annotated("2026-01-01 00:00:00 +0000 UTC", "1")}},
			got: objs{"configmaps": {"ns/a": annotated("2026-01-01 00:00:01 +0000 UTC", "1")}}, want: []string{`configmaps metadata.annotations["example.com/at"]`}},
		{name: "owned names - a child named after its recreated owner's UID - pass",
			ref: objs{"configmaps": {"ns/owner-5d8f7c": child("owner-5d8f7c", "u-1", "1")}},
			got: objs{"configmaps": {"ns/owner-9b2a41": child("owner-9b2a41", "u-2", "1")}}},
		{name: "owned names - a full UID in the name - pass",
			ref: objs{"configmaps": {"ns/owner-0f1e2d3c-aaaa-bbbb-cccc-000000000001": child("owner-0f1e2d3c-aaaa-bbbb-cccc-000000000001", "u-1", "1")}},
			got: objs{"configmaps": {"ns/owner-9a8b7c6d-dddd-eeee-ffff-000000000002": child("owner-9a8b7c6d-dddd-eeee-ffff-000000000002", "u-2", "1")}}},
		{name: "owned names - the owner's status names the renamed child - pass",
			ref: objs{"configmaps": {"ns/owner-5d8f7c": child("owner-5d8f7c", "u-1", "1"), "ns/owner": `{"metadata":{"name":"owner","uid":"u-1"},"status":{"child":"owner-5d8f7c"}}`}},
			got: objs{"configmaps": {"ns/owner-9b2a41": child("owner-9b2a41", "u-2", "1"), "ns/owner": `{"metadata":{"name":"owner","uid":"u-2"},"status":{"child":"owner-9b2a41"}}`}}},
		{name: "owned names - the owner's status names another child - fail",
			ref:  objs{"configmaps": {"ns/owner-5d8f7c": child("owner-5d8f7c", "u-1", "1"), "ns/owner": `{"metadata":{"name":"owner","uid":"u-1"},"status":{"child":"owner-5d8f7c"}}`}},
			got:  objs{"configmaps": {"ns/owner-9b2a41": child("owner-9b2a41", "u-2", "1"), "ns/owner": `{"metadata":{"name":"owner","uid":"u-2"},"status":{"child":"owner-0c0c0c"}}`}},
			want: []string{"configmaps status.child"}},
		{name: "owned names - a planted bug in the renamed child - fail",
			ref: objs{"configmaps": {"ns/owner-5d8f7c": child("owner-5d8f7c", "u-1", "1")}},
			got: objs{"configmaps": {"ns/owner-9b2a41": child("owner-9b2a41", "u-2", "2")}}, want: []string{"configmaps data.v"}},
		{name: "owned names - a new name of an owner not recreated - fail",
			ref: objs{"configmaps": {"ns/owner-5d8f7c": child("owner-5d8f7c", "u-1", "1")}},
			got: objs{"configmaps": {"ns/owner-9b2a41": child("owner-9b2a41", "u-1", "1")}}, want: []string{"configmaps (extra)", "configmaps (missing)"}},
		{name: "owned names - a name part that is no hash differs - fail",
			ref: objs{"configmaps": {"ns/owner-primary": child("owner-primary", "u-1", "1")}},
			got: objs{"configmaps": {"ns/owner-replica": child("owner-replica", "u-2", "1")}}, want: []string{"configmaps (extra)", "configmaps (missing)"}},
		{name: "owned names - two children for one - fail",
			ref:  objs{"configmaps": {"ns/owner-5d8f7c": child("owner-5d8f7c", "u-1", "1")}},
			got:  objs{"configmaps": {"ns/owner-9b2a41": child("owner-9b2a41", "u-2", "1"), "ns/owner-77aa01": child("owner-77aa01", "u-2", "1")}},
			want: []string{"configmaps (extra)", "configmaps (missing)"}},
		{name: "user masks - a masked field differs - pass", masks: user,
			ref: objs{"configmaps": {"ns/a": `{"data":{"v":"1","token":"abc"}}`}}, got: objs{"configmaps": {"ns/a": `{"data":{"v":"1","token":"xyz"}}`}}},
		{name: "user masks - a resource masked whole - pass", masks: user,
			ref: objs{"widgets.example.com": {"ns/w": `{"spec":{"n":1}}`}}, got: objs{"widgets.example.com": {"ns/w": `{"spec":{"n":2}}`, "ns/v": `{}`}}},
		{name: "user masks - a planted bug beside the masked field - fail", masks: user,
			ref: objs{"configmaps": {"ns/a": `{"data":{"v":"1","token":"abc"}}`}}, got: objs{"configmaps": {"ns/a": `{"data":{"v":"2","token":"xyz"}}`}},
			want: []string{"configmaps data.v"}},
		{name: "user masks - the same field of another resource - fail", masks: user,
			ref: objs{"secrets": {"ns/a": `{"data":{"token":"abc"}}`}}, got: objs{"secrets": {"ns/a": `{"data":{"token":"xyz"}}`}},
			want: []string{"secrets data.token"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := tt.masks
			if m.Fields == nil {
				m = DefaultMaskSet()
			}
			err := DiffFinalState(outcomeOf(tt.ref), outcomeOf(tt.got), m)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("DiffOutcome: got %v, want nil", err)
				}
				return
			}
			var d *DiffError
			if !errors.As(err, &d) || !errors.Is(err, ErrDiffersFromReference) {
				t.Fatalf("DiffOutcome: got %v, want a *DiffError wrapping %v", err, ErrDiffersFromReference)
			}
			if got, want := strings.Join(d.What, " | "), strings.Join(tt.want, " | "); got != want {
				t.Errorf("What: got %q, want %q\n%v", got, want, err)
			}
		})
	}
}

// TestLearnMasksOwnedNames shows two reference runs learn no mask of a
// child named after an owner the target made (a random UID each run). A
// third name matches it too, and a planted bug in it fires.
func TestLearnMasksOwnedNames(t *testing.T) {
	t.Parallel()
	a := outcomeOf(map[string]map[string]string{"configmaps": {"ns/owner-11aa22": child("owner-11aa22", "u-a", "1")}})
	b := outcomeOf(map[string]map[string]string{"configmaps": {"ns/owner-33bb44": child("owner-33bb44", "u-b", "1")}})
	m := DefaultMaskSet().Merge(LearnMasks(a, b))
	if len(m.Objects) != 0 {
		t.Fatalf("LearnMasks: got object masks %v, want none", m.Objects)
	}
	tests := []struct {
		name string
		v    string
		want bool // differs
	}{
		{"learned owned names - a third name, the same child - pass", "1", false},
		{"learned owned names - a third name, a planted bug - fail", "2", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := outcomeOf(map[string]map[string]string{"configmaps": {"ns/owner-55cc66": child("owner-55cc66", "u-c", tt.v)}})
			if err := DiffFinalState(a, got, m); (err != nil) != tt.want {
				t.Errorf("DiffOutcome: got %v, want differs %v", err, tt.want)
			}
		})
	}
}

func TestIsTimestamp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    string
		want bool
	}{
		{"timestamp - RFC 3339 UTC - pass", "2026-12-06T11:07:27Z", true},
		{"timestamp - fractional seconds - pass", "2026-12-06T11:07:27.123456789Z", true},
		{"timestamp - an offset - pass", "2026-12-06T11:07:27+01:00", true},
		{"timestamp - a date alone - fail", "2026-12-06", false},
		{"timestamp - a space for T - fail", "2026-12-06 11:07:27Z", false},
		{"timestamp - a month 13 - fail", "2026-13-06T11:07:27Z", false},
		{"timestamp - text around it - fail", "at 2026-12-06T11:07:27Z", false},
	}
	for _, tt := range tests {
		if got := IsTimestamp(tt.s); got != tt.want {
			t.Errorf("%s: IsTimestamp(%q): got %v, want %v", tt.name, tt.s, got, tt.want)
		}
	}
}
