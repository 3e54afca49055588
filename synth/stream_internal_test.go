package synth

import (
	"testing"
)

// TestStreaming_HoldsNoEvents checks what a streaming builder keeps once
// it has made its events: no changes, no listed JSON, only keys.
func TestStreaming_HoldsNoEvents(t *testing.T) {
	tests := []struct {
		name  string
		spill bool
		// wantHeld: whether changes or object JSON stay in memory
		wantHeld bool
	}{
		{"streaming builder - keys only - pass", true, false},
		{"in-memory builder - changes and JSON held - pass", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := GenerateOptions{Objects: 40, Events: 300, Seed: 5, BookmarkEvery: 10}
			b := NewBuilder()
			if tt.spill {
				sp := &spill{dir: t.TempDir(), o: o.cassetteOptions()}
				defer sp.close()
				b.spill = sp
			}
			generate(o, b)
			if b.err != nil {
				t.Fatalf("generate: got error %v, want none", b.err)
			}
			changes, jsonBytes, keys := 0, 0, 0
			for _, r := range b.resources {
				changes += len(r.changes)
				for _, v := range r.state {
					jsonBytes += len(v)
				}
				for _, v := range r.snapshot {
					jsonBytes += len(v)
				}
				keys += len(r.state)
			}
			if held := changes > 0 || jsonBytes > 0; held != tt.wantHeld {
				t.Errorf("held in memory: got %d changes and %d bytes of object JSON, want held %v", changes, jsonBytes, tt.wantHeld)
			}
			if keys == 0 {
				t.Errorf("live keys: got none, want the live objects' keys")
			}
		})
	}
}
