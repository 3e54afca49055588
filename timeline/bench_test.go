package timeline_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
	"github.com/lwreplay/lwreplay/timeline"
	"github.com/lwreplay/lwreplay/timeline/timelinetest"
)

// maxPageBytes bounds the page of a 10,000-event history.
const maxPageBytes = 5 << 20

// bigHistory returns a synthetic history of configmaps and pods with
// 10,000 events after 500 objects.
func bigHistory(tb testing.TB) *history.History {
	tb.Helper()
	f, err := synth.Generate(synth.GenerateOptions{Objects: 500, Events: 10000, Seed: 1, BookmarkEvery: 100})
	if err != nil {
		tb.Fatalf("Generate: got error %v, want none", err)
	}
	h, err := history.Build(f)
	if err != nil {
		tb.Fatalf("Build: got error %v, want none", err)
	}
	return h
}

func TestTenThousandEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 10,000-event history")
	}
	h := bigHistory(t)
	var b bytes.Buffer
	if err := timeline.Write(&b, timeline.FromHistory(h, "10,000 events"), h.Order()); err != nil {
		t.Fatalf("Write: got error %v, want none", err)
	}
	if b.Len() > maxPageBytes {
		t.Errorf("page size: got %d bytes, want at most %d", b.Len(), maxPageBytes)
	}
	p, err := timelinetest.Parse(b.String())
	if err != nil {
		t.Fatalf("Parse: got error %v, want the page's data", err)
	}
	if got := p.Counts()["event"]; got != 10000 {
		t.Errorf("event marks: got %d, want 10000", got)
	}
}

// BenchmarkWrite10k lays out and renders a 10,000-event history; it
// reports the page's size as page-bytes.
func BenchmarkWrite10k(b *testing.B) {
	h := bigHistory(b)
	var n countWriter
	b.ResetTimer()
	for b.Loop() {
		n = 0
		if err := timeline.Write(&n, timeline.FromHistory(h, "10,000 events"), h.Order()); err != nil {
			b.Fatalf("Write: got error %v, want none", err)
		}
	}
	b.ReportMetric(float64(n), "page-bytes")
}

// countWriter counts the bytes written to it.
type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
