package replayer

import (
	"bytes"
	"testing"
	"weak"

	"github.com/lwreplay/lwreplay/history"
)

func TestWithKind_Bound(t *testing.T) {
	withKindCache.Lock()
	saved := withKindCache.max
	withKindCache.Unlock()
	t.Cleanup(func() {
		withKindCache.Lock()
		withKindCache.max = saved
		withKindCache.Unlock()
	})
	tests := []struct {
		name     string
		room     int // bytes the cache may take beyond what it holds
		wantKept bool
	}{
		{"withKind - room in the cache - kept - pass", 1 << 20, true},
		{"withKind - no room in the cache - built, not kept - pass", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _, _, err := history.ParseObject([]byte(`{"metadata":{"name":"a","namespace":"ns","resourceVersion":"7"}}`))
			if err != nil {
				t.Fatalf("ParseObject: got error %v, want none", err)
			}
			withKindCache.Lock()
			withKindCache.max = withKindCache.bytes + tt.room
			withKindCache.Unlock()
			got := withKind(o, "ConfigMap", "v1")
			if want := o.WithKind("ConfigMap", "v1"); !bytes.Equal(got, want) {
				t.Errorf("withKind: got %s, want %s", got, want)
			}
			withKindCache.RLock()
			_, kept := withKindCache.m[weak.Make(o)]
			withKindCache.RUnlock()
			if kept != tt.wantKept {
				t.Errorf("kept in the cache: got %v, want %v", kept, tt.wantKept)
			}
		})
	}
}
