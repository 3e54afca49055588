package writes

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestStampTimes holds stampTimes to its rule: an entry old did not have,
// or whose time differs from old's, takes now; the others keep theirs.
func TestStampTimes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	const stampedAt, earlier, clock = "2026-01-02T03:04:05Z", "2025-01-01T00:00:00Z", "2026-12-06T20:00:00Z"
	entry := func(manager, tm string) any {
		e := map[string]any{"manager": manager, "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:data": map[string]any{}}}
		if tm != "" {
			e["time"] = tm
		}
		return e
	}
	withEntries := func(es ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "a", "managedFields": es}}}
	}
	tests := []struct {
		name     string
		old, obj *unstructured.Unstructured
		want     []string // each entry's time after
	}{
		{"stamp - a new entry - takes now - pass", withEntries(), withEntries(entry("kubectl", clock)), []string{stampedAt}},
		{"stamp - an entry unchanged - keeps its time - pass", withEntries(entry("kubectl", earlier)), withEntries(entry("kubectl", earlier)), []string{earlier}},
		{"stamp - an entry the manager touched - takes now - pass", withEntries(entry("kubectl", earlier)), withEntries(entry("kubectl", clock)), []string{stampedAt}},
		{"stamp - one of two touched - only it - pass", withEntries(entry("a", earlier), entry("b", earlier)),
			withEntries(entry("a", earlier), entry("b", clock)), []string{earlier, stampedAt}},
		{"stamp - an entry with no time, old had none - stays without - pass", withEntries(entry("a", "")), withEntries(entry("a", "")), []string{""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stampTimes(tc.old, tc.obj, now)
			es := entryMaps(tc.obj)
			if len(es) != len(tc.want) {
				t.Fatalf("entries: got %d, want %d", len(es), len(tc.want))
			}
			for i, e := range es {
				got, _ := e["time"].(string)
				if got != tc.want[i] {
					t.Errorf("entry %d (%v) time: got %q, want %q", i, e["manager"], got, tc.want[i])
				}
			}
			// the typed view agrees
			for i, e := range tc.obj.GetManagedFields() {
				if tc.want[i] != "" && (e.Time == nil || e.Time.UTC().Format(time.RFC3339) != tc.want[i]) {
					t.Errorf("entry %d typed time: got %v, want %s", i, e.Time, tc.want[i])
				}
			}
		})
	}
}
