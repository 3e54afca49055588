package oracle

import (
	"errors"
	"net/http"
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

// TestJudgeOneRefusedWrites shows a user's end-state invariant not judged
// on a run whose writes the replay refused (405: it takes none). It is
// judged otherwise.
func TestJudgeOneRefusedWrites(t *testing.T) {
	broken := errors.New("broken")
	inv := NewInvariant("mine", "always broken", func(*history.Log, *Observation) error { return broken })
	tests := []struct {
		name       string
		writes     []Write
		wantJudged bool
	}{
		{name: "user invariant - writes stored - judged - fail", writes: []Write{{Verb: "create", Code: http.StatusCreated}}, wantJudged: true},
		{name: "user invariant - no writes - judged - fail", wantJudged: true},
		{name: "user invariant - writes refused 405 - not judged - pass", writes: []Write{{Verb: "create", Code: http.StatusMethodNotAllowed}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &Observation{TruthLog: &history.Log{}, Writes: tc.writes}
			err, why := JudgeOne(inv, o)
			if tc.wantJudged && (!errors.Is(err, broken) || why != "") {
				t.Errorf("got %v (not judged: %q), want the invariant's error", err, why)
			}
			if !tc.wantJudged && (err != nil || why == "") {
				t.Errorf("got %v (not judged: %q), want not judged", err, why)
			}
		})
	}
}
