package replayer

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// actorsHistory records configmaps a, b and c (1001-1003). Then come
// another actor's changes a second apart: a's data (1004), b deleted
// (1005), a's data again (1006), c's data (1007).
func actorsHistory(t *testing.T) *history.History {
	t.Helper()
	b := synth.NewBuilder()
	cm := func(name string, data map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: data}
	}
	b.Add(cm("a", map[string]string{"k": "1"}))
	b.Add(cm("b", nil))
	b.Add(cm("c", map[string]string{"k": "1"}))
	b.Snapshot()
	b.Update(cm("a", map[string]string{"k": "2"}))
	b.Delete(cm("b", nil))
	b.Update(cm("a", map[string]string{"k": "3", "other": "x"}))
	b.Update(cm("c", map[string]string{"k": "2"}))
	h, err := b.History()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestOtherActors runs writes under the recorded pace before the other
// actor's recorded changes of the same objects. At the start the target
// annotates a, puts a finalizer on b and deletes c. The recorded changes
// then come as the other actor's writes onto what the target left.
func TestOtherActors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(actorsHistory(t), WithPace(Pace{Mode: PaceRecorded, Factor: 1}))
		cms := writeClient(t, s, false).CoreV1().ConfigMaps("ns")
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		list, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) != 3 {
			t.Fatalf("List: got %v, %v, want a, b, c", list, err)
		}
		w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		if err != nil {
			t.Fatalf("Watch: got error %v, want none", err)
		}
		defer w.Stop()
		byName := map[string]corev1.ConfigMap{}
		for _, o := range list.Items {
			byName[o.Name] = o
		}
		a := byName["a"]
		a.Annotations = map[string]string{"mine": "x"}
		if _, err := cms.Update(ctx, &a, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("Update a: got error %v, want none", err)
		}
		b := byName["b"]
		b.Finalizers = []string{"example.com/mine"}
		if _, err := cms.Update(ctx, &b, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("Update b: got error %v, want none", err)
		}
		if err := cms.Delete(ctx, "c", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("Delete c: got error %v, want none", err)
		}

		type seen struct{ typ, name, rv, data string }
		var got []seen
		last := ""
		for len(got) < 6 {
			select {
			case ev := <-w.ResultChan():
				cm, ok := ev.Object.(*corev1.ConfigMap)
				if !ok {
					t.Fatalf("watch: got %v, want configmap events", ev.Object)
				}
				if last != "" && !newer(cm.ResourceVersion, last) {
					t.Errorf("watch: got rv %s after %s, want rvs increasing", cm.ResourceVersion, last)
				}
				last = cm.ResourceVersion
				d := cm.Data["k"] + cm.Data["other"] + "|" + cm.Annotations["mine"]
				if cm.DeletionTimestamp != nil {
					d += "|deleting"
				}
				got = append(got, seen{string(ev.Type), cm.Name, cm.ResourceVersion, d})
			case <-ctx.Done():
				t.Fatalf("watch: got %v, want the three writes and the three recorded changes left", got)
			}
		}
		want := []seen{
			{string(watch.Modified), "a", "1004", "1|x"},        // the target's annotation
			{string(watch.Modified), "b", "1005", "|"},          // its finalizer
			{string(watch.Deleted), "c", "1006", "1|"},          // its delete
			{string(watch.Modified), "a", "1007", "2|x"},        // the recorded data change onto the annotated a
			{string(watch.Modified), "b", "1008", "||deleting"}, // the recorded delete of b: kept for the finalizer
			{string(watch.Modified), "a", "1009", "3x|x"},       // the recorded change again, from its recorded version
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("event %d: got %+v, want %+v", i, got[i], want[i])
			}
		}
		// c's recorded change came after the target deleted it: no event
		time.Sleep(30 * time.Second)
		synctest.Wait()
		select {
		case ev := <-w.ResultChan():
			t.Errorf("watch: got %s %v after the recorded changes, want none (c was deleted)", ev.Type, ev.Object)
		default:
		}
		// the target removes its finalizer: b is gone
		gotB, err := cms.Get(ctx, "b", metav1.GetOptions{})
		if err != nil || gotB.DeletionTimestamp == nil {
			t.Fatalf("Get b: got %v, %v, want b being deleted", gotB, err)
		}
		gotB.Finalizers = nil
		if _, err := cms.Update(ctx, gotB, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("Update b without finalizers: got error %v, want none", err)
		}
		if _, err := cms.Get(ctx, "b", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("Get b after its finalizer went: got %v, want NotFound", err)
		}
		l, _ := s.Served().Log(history.Resource{Version: "v1", Resource: "configmaps"})
		final := map[string]bool{}
		for _, o := range l.StateAt(l.End()) {
			final[o.Name] = true
		}
		if len(final) != 1 || !final["a"] {
			t.Errorf("truth: got final state %v, want only a", final)
		}
	})
}

// ownWritesHistory is history/testdata/own-writes.yaml's recording of a
// controller with its own changes left out (history.WithoutOwn). The
// other actor changes p at 13, after the controller annotated it at 12.
// It changes p-child at 14; the controller created it at 11 and deletes
// it at 15.
func ownWritesHistory(t *testing.T) *history.History {
	t.Helper()
	files, err := cassette.LoadAll("../history/testdata/own-writes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatal(err)
	}
	if h, err = history.WithoutOwn(h, nil); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestExpectOwn replays a controller's recording with its own changes
// left out, at the recorded pace. The other actor's changes are served as
// its writes onto the objects as the replayed controller leaves them. Its
// change of p comes without the recorded controller's annotation. Its
// change of p-child comes only if the replayed controller creates p-child
// before it. Else its writer's update finds nothing.
func TestExpectOwn(t *testing.T) {
	tests := []struct {
		name   string
		create bool // the replayed controller creates p-child at the start
		want   []string
	}{
		{name: "expect own - the replayed controller writes nothing - the other actor's changes without the controller's - pass",
			want: []string{"MODIFIED p k=v2 child="}},
		{name: "expect own - the replayed controller creates p-child - the other actor's change of it follows - pass", create: true,
			want: []string{"ADDED p-child k= child=", "MODIFIED p k=v2 child=", "MODIFIED p-child k= child= extra=other"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := New(ownWritesHistory(t), WithPace(Pace{Mode: PaceRecorded}))
				cms := writeClient(t, s, false).CoreV1().ConfigMaps("ns")
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
				defer cancel()
				list, err := cms.List(ctx, metav1.ListOptions{})
				if err != nil || len(list.Items) != 1 {
					t.Fatalf("List: got %v, %v, want p alone", list, err)
				}
				w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
				if err != nil {
					t.Fatalf("Watch: got error %v, want none", err)
				}
				defer w.Stop()
				if tc.create {
					child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "p-child", Labels: map[string]string{"child": "true"}}, Data: map[string]string{"parent": "p"}}
					if _, err := cms.Create(ctx, child, metav1.CreateOptions{}); err != nil {
						t.Fatalf("Create p-child: got error %v, want none", err)
					}
				}
				time.Sleep(time.Minute) // past every recorded offset
				var got []string
				for done := false; !done; {
					synctest.Wait() // the watch has handed on what it has
					select {
					case ev := <-w.ResultChan():
						cm, ok := ev.Object.(*corev1.ConfigMap)
						if !ok {
							continue
						}
						line := fmt.Sprintf("%s %s k=%s child=%s", ev.Type, cm.Name, cm.Data["k"], cm.Annotations["child"])
						if cm.Data["extra"] != "" {
							line += " extra=" + cm.Data["extra"]
						}
						got = append(got, line)
					default:
						done = true
					}
				}
				if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
					t.Errorf("watch: got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
				}
			})
		})
	}
}
