package discovery

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/history"
)

// TestServedFinalize checks that a recorded namespaces/finalize is listed,
// with its update verb, only by a replay that takes writes.
func TestServedFinalize(t *testing.T) {
	core := schema.GroupVersion{Version: "v1"}
	ids := map[history.Resource]bool{{Version: "v1", Resource: "namespaces"}: true, {Version: "v1", Resource: "pods"}: true}
	tests := []struct {
		name      string
		writes    bool
		res       string
		want      bool
		wantVerbs []string
	}{
		{name: "served finalize - replay taking writes - pass", writes: true, res: "namespaces/finalize", want: true, wantVerbs: []string{"update"}},
		{name: "served finalize - read-only replay - fail", res: "namespaces/finalize"},
		{name: "served finalize - another resource's - fail", writes: true, res: "pods/finalize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := servedSet{ids: ids, writes: tt.writes}
			r, ok := servedResource(set, core, metav1.APIResource{Name: tt.res, Kind: "Namespace", Verbs: []string{"update"}})
			if ok != tt.want || (ok && !slices.Equal(r.Verbs, tt.wantVerbs)) {
				t.Errorf("got listed %v verbs %v, want %v %v", ok, r.Verbs, tt.want, tt.wantVerbs)
			}
		})
	}
}
