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
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		var wf wireFrame
		if _, err := parseFrame(Location{}, lines[n%len(lines)], &wf); err != nil {
			b.Fatal(err)
		}
	}
}
