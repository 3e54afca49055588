package report

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
)

func TestWriteTimelineNoObservation(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTimeline(&b, nil, nil); !errors.Is(err, ErrReport) {
		t.Errorf("WriteTimeline(nil): got error %v, want ErrReport", err)
	}
}

func TestDetectedAt(t *testing.T) {
	broken := errors.New("broken")
	base := observe.Observation{EndedAt: 60 * time.Second, FirstPanicAt: -1}
	withPanic := base
	withPanic.FirstPanicAt = 2 * time.Second
	withLoop := base
	withLoop.HotLoop = &observe.HotLoop{At: 3 * time.Second}
	tests := []struct {
		name    string
		o       observe.Observation
		results map[string]error
		want    time.Duration
	}{
		{name: "detected at - converged broken - the end of the run - pass", o: withPanic, results: map[string]error{"converged": broken}, want: 60 * time.Second},
		{name: "detected at - clean-stop broken by a panic - the first panic - pass", o: withPanic, results: map[string]error{"clean-stop": broken}, want: 2 * time.Second},
		{name: "detected at - clean-stop broken, no panic - the end of the run - pass", o: base, results: map[string]error{"clean-stop": broken}, want: 60 * time.Second},
		{name: "detected at - no-hot-loop broken - the request that crossed the bound - pass", o: withLoop, results: map[string]error{"no-hot-loop": broken}, want: 3 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := detectedAt(&tc.o, tc.results); got != tc.want {
				t.Errorf("detectedAt: got %v, want %v", got, tc.want)
			}
		})
	}
}
