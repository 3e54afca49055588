package oracle

import (
	"errors"
	"slices"
	"testing"
)

// TestKnownCover shows a run that broke the invariants of two known
// findings at once taken as known. A run that broke an invariant no known
// finding names is still reported.
func TestKnownCover(t *testing.T) {
	storm := Known{Name: "storm", Site: "client.(*Reflector).watchList", Invariants: []string{"no-hot-loop", "no-request-storm"}}
	leak := Known{Name: "leak", Site: "watch.(*filteredWatch).loop", Invariants: []string{"clean-stop"}}
	known := []Known{storm, leak}
	stormErr := withSite(errors.New("restarted 196 times"), storm.Site)
	leakErr := withSite(errors.New("a goroutine left"), leak.Site)
	for _, tc := range []struct {
		name    string
		results map[string]error
		want    []string
		wantOK  bool
	}{
		{name: "cover - a storm and a leak at once - known, pass",
			results: map[string]error{"no-hot-loop": stormErr, "clean-stop": leakErr}, want: []string{"storm", "leak"}, wantOK: true},
		{name: "cover - a storm's second invariant without a site of its own - known, pass",
			results: map[string]error{"no-hot-loop": stormErr, "no-request-storm": errors.New("a burst"), "clean-stop": leakErr}, want: []string{"storm", "leak"}, wantOK: true},
		{name: "cover - a storm and converged - reported, fail",
			results: map[string]error{"no-hot-loop": stormErr, "converged": errors.New("store differs")}},
		{name: "cover - a leak at another site - reported, fail",
			results: map[string]error{"no-hot-loop": stormErr, "clean-stop": withSite(errors.New("a goroutine left"), "mine.loop")}},
		{name: "cover - nothing broken - none, pass", results: map[string]error{"converged": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := KnownCover(tc.results, SignatureOf(tc.results), known)
			if ok != tc.wantOK || !slices.Equal(got, tc.want) {
				t.Errorf("got %v (ok %v), want %v (ok %v)", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
