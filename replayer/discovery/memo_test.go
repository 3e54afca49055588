package discovery

import (
	"bytes"
	"slices"
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

// TestNewMemo checks that Docs of the same inputs are one (built once per
// process) and that any other input makes another, answering as its own.
func TestNewMemo(t *testing.T) {
	t.Parallel()
	recorded := map[string][]byte{"/version": []byte(`{"gitVersion":"v1.37.2"}`)}
	other := map[string][]byte{"/version": []byte(`{"gitVersion":"v1.36.0"}`)}
	pods := append(slices.Clone(served), history.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true})
	base := New(recorded, served, "v1.37.2")
	tests := []struct {
		name     string
		doc      *Doc
		wantSame bool
	}{
		{name: "New - same inputs, copied - the same Doc - pass", doc: New(map[string][]byte{"/version": bytes.Clone(recorded["/version"])}, slices.Clone(served), "v1.37.2"), wantSame: true},
		{name: "New - other recorded answers - another Doc - pass", doc: New(other, served, "v1.37.2")},
		{name: "New - other resources - another Doc - pass", doc: New(recorded, pods, "v1.37.2")},
		{name: "New - other gitVersion - another Doc - pass", doc: New(recorded, served, "v1.36.0")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.doc == base; got != tt.wantSame {
				t.Errorf("got the same Doc %v, want %v", got, tt.wantSame)
			}
		})
	}
	if a, _ := New(other, served, "v1.37.2").Answer("/version", "", "h"); !bytes.Equal(a.Body, other["/version"]) {
		t.Errorf("other recorded answers: got /version %s, want %s", a.Body, other["/version"])
	}
	if New(recorded, pods, "v1.37.2").Lists(history.Resource{Version: "v1", Resource: "pods"}) == base.Lists(history.Resource{Version: "v1", Resource: "pods"}) {
		t.Errorf("other resources: got pods listed alike with and without them")
	}
}
