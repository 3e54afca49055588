package replayer

import (
	"fmt"
	"testing"
)

func TestRevisions(t *testing.T) {
	t.Parallel()
	// recorded RVs 10, 11, 12, 13 (no gaps, as etcd's revisions of one
	// resource often are); writes after 11 (twice) and after 12
	var v revisions
	if got := v.served(11); got != 11 {
		t.Fatalf("served(11) with no write: got %d, want 11", got)
	}
	w0, w1 := v.write(11), v.write(11)
	w2 := v.write(12)
	stale := v.write(10) // placed after the last place, 12: what was served only grows
	tests := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"revisions - recorded 10, before every write - served as recorded - pass", v.served(10), 10},
		{"revisions - recorded 11, the first writes' place - served as recorded - pass", v.served(11), 11},
		{"revisions - first write after 11 - 12 - pass", w0, 12},
		{"revisions - second write after 11 - 13 - pass", w1, 13},
		{"revisions - recorded 12, after two writes - 14 - pass", v.served(12), 14},
		{"revisions - write after 12 - 15 - pass", w2, 15},
		{"revisions - write placed before the last place - after it, 16 - pass", stale, 16},
		{"revisions - recorded 13, after four writes - 17 - pass", v.served(13), 17},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %d, want %d", tc.got, tc.want)
			}
		})
	}
	// every served RV translates back to what it serves
	for _, rec := range []uint64{10, 11, 12, 13, 100} {
		t.Run(fmt.Sprintf("revisions - recorded %d - translates back - pass", rec), func(t *testing.T) {
			r, w, ok := v.recorded(v.served(rec))
			if !ok || w != -1 || r != rec {
				t.Errorf("recorded(served(%d) = %d): got %d, write %d, ok %v, want %d, -1, true", rec, v.served(rec), r, w, ok, rec)
			}
		})
	}
	for i, s := range []uint64{w0, w1, w2, stale} {
		t.Run(fmt.Sprintf("revisions - write %d at %d - translates back - pass", i, s), func(t *testing.T) {
			if _, w, ok := v.recorded(s); !ok || w != i {
				t.Errorf("recorded(%d): got write %d, ok %v, want write %d", s, w, ok, i)
			}
		})
	}
	t.Run("revisions - text of a non-integer RV - served as it is - pass", func(t *testing.T) {
		if got := v.servedText("r00002c"); got != "r00002c" {
			t.Errorf("servedText(r00002c): got %q, want it unchanged", got)
		}
		if got := v.servedText("13"); got != "17" {
			t.Errorf("servedText(13): got %q, want 17", got)
		}
	})
}

// BenchmarkRevisions measures a write and a translation with 10,000 writes
// placed.
func BenchmarkRevisions(b *testing.B) {
	var v revisions
	for i := range 10000 {
		v.write(uint64(1000 + i/3))
	}
	b.ResetTimer()
	for i := range b.N {
		s := v.served(uint64(1000 + i%5000))
		if _, _, ok := v.recorded(s); !ok {
			b.Fatalf("recorded(%d): got not ok", s)
		}
	}
}
