package fuzz

import (
	"errors"
	"testing"

	clientfeatures "k8s.io/client-go/features"

	"github.com/lwreplay/lwreplay/faults"
)

// TestConsistentViewAtomicFIFO runs client-go's informer through a relist
// that changes many objects at once (the first watch answered 410, the
// relist served at the newest state) with the AtomicFIFO gate off and on,
// and InOrderInformersBatchProcess off (on, a whole relist is applied in
// one batch before any handler runs, and no unserved state was seen): with
// AtomicFIFO off the relist reaches the store item by item and a handler
// can read a state the server never served — in some runs, as the
// goroutines happen to run; on, it reaches the store at once.
func TestConsistentViewAtomicFIFO(t *testing.T) {
	informer, _ := LookupTarget("informer")
	plan, err := faults.ParseText("expire-watch:after=0,watch=1")
	if err != nil {
		t.Fatal(err)
	}
	const runs = 10
	tests := []struct {
		name     string
		atomic   bool
		wantSeen bool // some run shows a state never served
	}{
		{name: "consistent view - AtomicFIFO off, relist of many changes - a handler reads an unserved state - fail", atomic: false, wantSeen: true},
		{name: "consistent view - AtomicFIFO on, relist of many changes - every state read was served - pass", atomic: true},
	}
	for _, level := range []Level{Typed, Wire} {
		for _, tc := range tests {
			t.Run(level.String()+" "+tc.name, func(t *testing.T) {
				seen := 0
				for range runs {
					obs := Observe(t, Spec{History: loadTargetHistory(t), Plan: plan, Target: informer, Level: level,
						Gates: Gates{clientfeatures.AtomicFIFO: tc.atomic, clientfeatures.InOrderInformersBatchProcess: false}})
					if len(obs.Views) == 0 {
						t.Fatalf("views: got none, want the store at each notification after the sync")
					}
					err := viewViolations(obs)
					if err != nil {
						seen++
					}
					judged := Judge(obs, "consistent-view")["consistent-view"]
					switch {
					case tc.atomic && judged != nil:
						t.Errorf("consistent-view with AtomicFIFO on: got %v, want it to hold", judged)
					case !tc.atomic && judged != nil:
						t.Errorf("consistent-view with AtomicFIFO off: got %v, want it not judged (not promised)", judged)
					case err != nil && !errors.Is(err, ErrInconsistentView):
						t.Errorf("view violations: got %v, want %v", err, ErrInconsistentView)
					}
				}
				if (seen > 0) != tc.wantSeen {
					t.Errorf("runs showing a state never served: got %d of %d, want some: %v", seen, runs, tc.wantSeen)
				}
				t.Logf("%d of %d runs showed a state never served", seen, runs)
			})
		}
	}
}
