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

// TestWriteBeforeLateBookmark writes under the recorded pace while another
// resource's log has no event, only a BOOKMARK recorded later than a
// delete. The bookmark is not due yet, so it must not place the write
// after that delete, nor be the RV a LIST of the quiet log answers. (A
// cass-operator recording's pods log did both: the operator's first
// update of its datacenter was answered 404, the delete 15 s ahead
// already in its view.)
func TestWriteBeforeLateBookmark(t *testing.T) {
	tests := []struct {
		name    string
		after   time.Duration
		wantErr bool
	}{
		{name: "paced write - before the delete, a later bookmark in another log - pass", after: 6 * time.Second},
		{name: "paced write - after the delete - fail", after: 20 * time.Second, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := synth.NewBuilder()
				b.Add(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "quiet"}})
				b.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "seed"}})
				b.Snapshot()
				b.Wait(time.Second)
				b.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
				b.Wait(10 * time.Second)
				b.Delete(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
				b.Wait(30 * time.Second)
				h, err := b.History()
				if err != nil {
					t.Fatal(err)
				}
				s := New(h, WithPace(Pace{Mode: PaceRecorded, Factor: 1}))
				cs := writeClient(t, s, false)
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
				defer cancel()
				secrets, err := cs.CoreV1().Secrets("ns").List(ctx, metav1.ListOptions{})
				if err != nil {
					t.Fatalf("List secrets: got error %v, want none", err)
				}
				if want := h.Logs[0].StartRV; secrets.ResourceVersion != want {
					t.Errorf("List secrets at the start: got rv %s, want %s (the later bookmark is not due)", secrets.ResourceVersion, want)
				}
				time.Sleep(tc.after)
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", Annotations: map[string]string{"mine": "x"}}}
				_, err = cs.CoreV1().ConfigMaps("ns").Update(ctx, cm, metav1.UpdateOptions{})
				if got := err != nil; got != tc.wantErr {
					t.Errorf("Update a at %v: got error %v, want error %v", tc.after, err, tc.wantErr)
				}
			})
		})
	}
}
