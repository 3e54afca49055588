package replayer

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/synth"
)

// TestRecordedDeleteAfterTwoWrites serves a recorded delete of an object
// the target put a finalizer on, then wrote again, before the delete's
// time. The delete marks the object (a MODIFIED with a deletionTimestamp).
// The second write rebases the delete again: it must still mark the
// object, not be dropped as a change that makes no difference. (A
// cass-operator datacenter was never seen deleted: its finalizer update
// was followed by two status patches.)
func TestRecordedDeleteAfterTwoWrites(t *testing.T) {
	tests := []struct {
		name       string
		writes     int
		wantMarked bool
	}{
		{name: "recorded delete - after one write of the target's - pass", writes: 1, wantMarked: true},
		{name: "recorded delete - after two writes of the target's - pass", writes: 2, wantMarked: true},
		{name: "recorded delete - no finalizer put - fail", writes: 0, wantMarked: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := synth.NewBuilder()
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"}}
				b.Add(cm)
				b.Snapshot()
				b.Wait(10 * time.Second)
				b.Delete(cm)
				b.Wait(10 * time.Second)
				h, err := b.History()
				if err != nil {
					t.Fatal(err)
				}
				s := New(h, WithPace(Pace{Mode: PaceRecorded, Factor: 1}))
				cms := writeClient(t, s, false).CoreV1().ConfigMaps("ns")
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
				defer cancel()
				for i := range tc.writes {
					got, err := cms.Get(ctx, "b", metav1.GetOptions{})
					if err != nil {
						t.Fatalf("Get b: got error %v, want none", err)
					}
					got.Finalizers = []string{"example.com/mine"}
					got.Annotations = map[string]string{"write": string(rune('0' + i))}
					if _, err := cms.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
						t.Fatalf("Update b (write %d): got error %v, want none", i+1, err)
					}
				}
				list, err := cms.List(ctx, metav1.ListOptions{})
				if err != nil {
					t.Fatalf("List: got error %v, want none", err)
				}
				w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
				if err != nil {
					t.Fatalf("Watch: got error %v, want none", err)
				}
				defer w.Stop()
				time.Sleep(time.Minute) // past the recorded delete
				marked := false
				for done := false; !done; {
					synctest.Wait() // the watch has handed on what it has
					select {
					case ev := <-w.ResultChan():
						if c, ok := ev.Object.(*corev1.ConfigMap); ok && c.Name == "b" && c.DeletionTimestamp != nil {
							marked = true
						}
					default:
						done = true
					}
				}
				if marked != tc.wantMarked {
					t.Errorf("b after the recorded delete: got marked %v, want marked %v", marked, tc.wantMarked)
				}
			})
		})
	}
}
