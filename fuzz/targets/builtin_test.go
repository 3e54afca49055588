package targets

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

func TestApplyDeltasErrors(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "a", "namespace": "ns", "resourceVersion": "5"}}}
	good := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.Indexers{})
	tests := []struct {
		name    string
		indexer cache.Indexer
		deltas  any
		wantErr string // "" for none
		wantOps int
	}{
		{name: "apply - added to a working indexer - recorded - pass", indexer: good,
			deltas: cache.Deltas{{Type: cache.Added, Object: obj}}, wantOps: 1},
		{name: "apply - indexer get fails - error returned, nothing recorded - fail", indexer: brokenIndexer{},
			deltas: cache.Deltas{{Type: cache.Added, Object: obj}}, wantErr: "Added delta: indexer get: broken indexer"},
		{name: "apply - indexer delete fails - error returned - fail", indexer: brokenIndexer{},
			deltas: cache.Deltas{{Type: cache.Deleted, Object: obj}}, wantErr: "broken indexer"},
		{name: "apply - not deltas - error returned - fail", indexer: good, deltas: obj, wantErr: "want Deltas"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			probe := harness.NewProbe(time.Now())
			err := applyDeltas(tc.indexer, probe, tc.deltas, true)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("applyDeltas: got error %v, want none", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("applyDeltas: got error %v, want one containing %q", err, tc.wantErr)
			}
			if got := len(probe.Deliveries()); got != tc.wantOps {
				t.Errorf("deliveries: got %d, want %d", got, tc.wantOps)
			}
		})
	}
}

// brokenIndexer is an indexer whose Get, Add, Update and Delete fail.
type brokenIndexer struct{ cache.Indexer }

var errBrokenIndexer = errors.New("broken indexer")

func (brokenIndexer) Get(any) (any, bool, error) { return nil, false, errBrokenIndexer }
func (brokenIndexer) Add(any) error              { return errBrokenIndexer }
func (brokenIndexer) Update(any) error           { return errBrokenIndexer }
func (brokenIndexer) Delete(any) error           { return errBrokenIndexer }
