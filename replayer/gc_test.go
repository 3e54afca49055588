package replayer

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/lwreplay/lwreplay/history"
)

// TestGarbageCollector creates children owned by configmaps of
// listHistory: a/one lives, and the recording deletes b/two. It checks
// what the replay's garbage collector leaves. A child whose every owner is
// gone is deleted once that has happened. That is by an event From the
// collector, not in the write log. One with a live owner, or an owner the
// history never held, stays. Deleting its last live owner collects it.
func TestGarbageCollector(t *testing.T) {
	uidOf := map[string]types.UID{}
	for _, o := range listHistory(t).Logs[0].Initial {
		uidOf[o.Key()] = types.UID(o.UID)
	}
	ref := func(name string, uid types.UID) metav1.OwnerReference {
		yes := true
		return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: name, UID: uid, Controller: &yes}
	}
	tests := []struct {
		name        string
		owners      []metav1.OwnerReference
		deleteOwner string // a configmap of namespace a the target deletes after the create
		wantKept    bool
	}{
		{name: "garbage collector - owner deleted by the recording - collected - pass", owners: []metav1.OwnerReference{ref("two", uidOf["b/two"])}},
		{name: "garbage collector - owner alive - kept - pass", owners: []metav1.OwnerReference{ref("one", uidOf["a/one"])}, wantKept: true},
		{name: "garbage collector - owner the history never held - kept - pass", owners: []metav1.OwnerReference{ref("elsewhere", "no-such-uid")}, wantKept: true},
		{name: "garbage collector - one owner gone, one alive - kept - pass",
			owners: []metav1.OwnerReference{ref("two", uidOf["b/two"]), {APIVersion: "v1", Kind: "ConfigMap", Name: "one", UID: uidOf["a/one"]}}, wantKept: true},
		{name: "garbage collector - its owner deleted by the target - collected - pass", owners: []metav1.OwnerReference{ref("one", uidOf["a/one"])},
			deleteOwner: "one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(listHistory(t))
			cms := writeClient(t, s, false).CoreV1().ConfigMaps("a")
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "child", OwnerReferences: tc.owners}}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create: got error %v, want none", err)
			}
			wantWrites := 1
			if tc.deleteOwner != "" {
				if err := cms.Delete(ctx, tc.deleteOwner, metav1.DeleteOptions{}); err != nil {
					t.Fatalf("delete %s: got error %v, want none", tc.deleteOwner, err)
				}
				wantWrites++
			}
			_, err := cms.Get(ctx, "child", metav1.GetOptions{})
			if kept := err == nil; kept != tc.wantKept {
				t.Errorf("child: got kept %v (get: %v), want %v", kept, err, tc.wantKept)
			}
			if got := len(s.Writes()); got != wantWrites {
				t.Errorf("write log: got %d writes, want %d (the collector's deletes are not the target's)", got, wantWrites)
			}
			var collected []string
			for _, l := range s.Served().Logs {
				for _, e := range l.Events {
					if e.From.File == gcFrom {
						collected = append(collected, string(e.Type)+" "+e.Object.Key())
					}
				}
			}
			want := 0
			if !tc.wantKept {
				want = 1
			}
			if len(collected) != want || (want == 1 && collected[0] != string(history.Deleted)+" a/child") {
				t.Errorf("the collector's events: got %v, want %d DELETED a/child", collected, want)
			}
		})
	}
}
