package replayer

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/synth"
)

// flushCounter is a ResponseWriter that counts flushes.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++; f.ResponseRecorder.Flush() }

func TestWatchListFlushes(t *testing.T) {
	const objects = 3000
	b := synth.NewBuilder()
	for i := range objects {
		b.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("cm-%05d", i)},
			Data: map[string]string{"k": strings.Repeat("v", 100)}})
	}
	h, err := b.History()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		opts        []Option
		min, max    int
		description string
	}{
		{"WatchList - initial events ready at once - flushed in batches - pass", nil, 2, objects / 50, "every 64 KiB"},
		{"WatchList - a fault plan sees each frame - flushed one by one - pass", []Option{WithPlan(faults.Plan{})}, objects, objects + 10, "each frame"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := New(h, tt.opts...)
				w := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
				req := httptest.NewRequest("GET", "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1", nil)
				s.ServeHTTP(w, req)
				if n := strings.Count(w.Body.String(), `"type":"ADDED"`); n != objects {
					t.Fatalf("got %d ADDED events, want %d", n, objects)
				}
				if w.flushes < tt.min || w.flushes > tt.max {
					t.Errorf("got %d flushes for %d initial events, want %d to %d (%s)", w.flushes, objects, tt.min, tt.max, tt.description)
				}
			})
		})
	}
}
