package synth_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/synth"
)

func TestBuilder_ResourceFirstSeenAfterSnapshot(t *testing.T) {
	t.Parallel()
	b := synth.NewBuilder()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
	b.Add(cm) // 1001
	b.Snapshot()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	b.Add(pod)   // 1002
	b.Update(cm) // 1003
	pod.Status.Phase = corev1.PodRunning
	b.Update(pod) // 1004
	h, err := b.History()
	if err != nil {
		t.Fatalf("History: got error %v, want none", err)
	}
	tests := []struct {
		name        string
		kind        string
		wantStart   string
		wantInitial int
		wantEvents  []string
	}{
		{"snapshotted resource - pass", "ConfigMap", "1001", 1, []string{"MODIFIED 1003"}},
		{"resource first seen after - starts empty - pass", "Pod", "1001", 0, []string{"ADDED 1002", "MODIFIED 1004"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, l := range h.Logs {
				if l.Resource.Kind != tt.kind {
					continue
				}
				var evs []string
				for _, e := range l.Events {
					evs = append(evs, string(e.Type)+" "+e.RV())
				}
				if l.StartRV != tt.wantStart || len(l.Initial) != tt.wantInitial || !equalStrings(evs, tt.wantEvents) {
					t.Errorf("got start %s, %d initial, events %v, want %s, %d, %v", l.StartRV, len(l.Initial), evs, tt.wantStart, tt.wantInitial, tt.wantEvents)
				}
				return
			}
			t.Errorf("got no %s log, want one", tt.kind)
		})
	}
}

// TestBuilder_LastBookmarkAtHistoryEnd: a resource whose changes end
// early still carries the history's last RV in its last BOOKMARK. That
// bookmark comes when the history ends, not at its own last change.
// Otherwise a paced replay takes every later change of the other
// resources to have happened at once.
func TestBuilder_LastBookmarkAtHistoryEnd(t *testing.T) {
	b := synth.NewBuilder()
	b.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}})
	b.Snapshot()
	b.Wait(time.Minute)
	b.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
	f, err := b.Cassette(synth.CassetteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range f.Interactions {
		if !strings.Contains(i.URL, "watch=true") || !strings.Contains(i.URL, "namespaces") {
			continue
		}
		if n := len(i.FrameOffsets); n == 0 || i.FrameOffsets[n-1] < time.Minute {
			t.Errorf("last bookmark - namespaces, no change after the list - at the history's end - pass: got offsets %v, want the last ≥ 1m", i.FrameOffsets)
		}
		return
	}
	t.Errorf("got no namespaces watch in %d interactions, want one", len(f.Interactions))
}
