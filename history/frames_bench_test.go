package history

import (
	"bytes"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
)

// benchFrames returns the watch frames of a synthetic-cassette fixture.
func benchFrames(b *testing.B) [][]byte {
	f, err := cassette.Load("../cassettes/synthetic-configmaps-pods.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for _, i := range f.Interactions {
		if bytes.Contains([]byte(i.URL), []byte("watch=true")) {
			for _, l := range bytes.Split(i.Body, []byte("\n")) {
				if len(l) > 0 && !bytes.Contains(l, []byte(`"BOOKMARK"`)) {
					lines = append(lines, l)
				}
			}
		}
	}
	if len(lines) == 0 {
		b.Fatal("no frames")
	}
	return lines
}

// BenchmarkParseFrame is the cost of reading one recorded watch frame into
// the history, per frame (one CPU).
func BenchmarkParseFrame(b *testing.B) {
	lines := benchFrames(b)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size / len(lines)))
	b.ReportAllocs()
	// parseFrame cuts the object out of its line in place: each round
	// parses a fresh copy, as a build parses each line once.
	buf := make([]byte, 0, size/len(lines)*4)
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		buf = append(buf[:0], lines[n%len(lines)]...)
		var wf wireFrame
		if _, err := parseFrame(Location{}, buf, &wf); err != nil {
			b.Fatal(err)
		}
	}
}
