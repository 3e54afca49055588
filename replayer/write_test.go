package replayer

import (
	"context"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/history"
)

// writeClient is a clientset of s over its in-process transport; with
// protobuf, it sends bodies as controller-runtime's client does.
func writeClient(t *testing.T, s *Server, protobuf bool) kubernetes.Interface {
	t.Helper()
	cfg := &rest.Config{Host: "http://replay.invalid", Transport: s.Transport()}
	cfg.ContentType = "application/json"
	if protobuf {
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cfg.AcceptContentTypes = "application/json"
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("NewForConfig: got error %v, want none", err)
	}
	return cs
}

// TestWrites drives client-go's typed client through a create, a stale
// update, an update and a delete of a configmap on a replay of
// listHistory. A watch is open from the newest state. Each answer is what
// kube-apiserver answers. The watch sees the writes as events, and the
// served history (the truth) holds them.
func TestWrites(t *testing.T) {
	for _, protobuf := range []bool{false, true} {
		name := "json"
		if protobuf {
			name = "protobuf"
		}
		t.Run("writes - "+name+" bodies - create, stale update, update, delete - pass", func(t *testing.T) {
			s := New(listHistory(t))
			cs := writeClient(t, s, protobuf)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			cms := cs.CoreV1().ConfigMaps("a")
			list, err := cms.List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatalf("List: got error %v, want none", err)
			}
			w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
			if err != nil {
				t.Fatalf("Watch: got error %v, want none", err)
			}
			defer w.Stop()

			created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made"}, Data: map[string]string{"k": "1"}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("Create: got error %v, want none", err)
			}
			if created.UID == "" || !newer(created.ResourceVersion, list.ResourceVersion) || created.CreationTimestamp.IsZero() {
				t.Errorf("created: got uid %q rv %q created %v, want a uid, an rv after the list's %s and a creationTimestamp",
					created.UID, created.ResourceVersion, created.CreationTimestamp, list.ResourceVersion)
			}
			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made"}}, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
				t.Errorf("Create again: got %v, want AlreadyExists", err)
			}
			stale := created.DeepCopy()
			stale.ResourceVersion = "1011"
			stale.Data["k"] = "stale"
			if _, err := cms.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
				t.Errorf("Update at a stale rv: got %v, want Conflict", err)
			}
			created.Data["k"] = "2"
			updated, err := cms.Update(ctx, created, metav1.UpdateOptions{})
			if err != nil {
				t.Fatalf("Update: got error %v, want none", err)
			}
			if !newer(updated.ResourceVersion, created.ResourceVersion) || updated.UID != created.UID {
				t.Errorf("updated: got rv %q uid %q, want an rv after %s and the created uid %q", updated.ResourceVersion, updated.UID, created.ResourceVersion, created.UID)
			}
			got, err := cms.Get(ctx, "made", metav1.GetOptions{})
			if err != nil || got.Data["k"] != "2" {
				t.Fatalf("Get: got %v, %v, want data k=2", got, err)
			}
			if err := cms.Delete(ctx, "made", metav1.DeleteOptions{}); err != nil {
				t.Fatalf("Delete: got error %v, want none", err)
			}
			if _, err := cms.Get(ctx, "made", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("Get after Delete: got %v, want NotFound", err)
			}

			// the watch serves the recorded events after the list, and the
			// writes where they were placed: after what had been served
			var seen []string
			last := ""
			for done := false; !done; {
				select {
				case ev := <-w.ResultChan():
					cm, _ := ev.Object.(*corev1.ConfigMap)
					if cm == nil {
						continue
					}
					if last != "" && !newer(cm.ResourceVersion, last) {
						t.Errorf("watch: got %s %s at rv %s after rv %s, want rvs increasing", ev.Type, cm.Name, cm.ResourceVersion, last)
					}
					last = cm.ResourceVersion
					if cm.Name == "made" {
						seen = append(seen, string(ev.Type)+"@"+cm.ResourceVersion)
						done = ev.Type == watch.Deleted
					}
				case <-ctx.Done():
					t.Fatalf("watch: got %q of made, want its create, update and delete", seen)
				}
			}
			want := []string{string(watch.Added) + "@" + created.ResourceVersion, string(watch.Modified) + "@" + updated.ResourceVersion}
			if len(seen) != 3 || seen[0] != want[0] || seen[1] != want[1] {
				t.Errorf("watch events of made: got %q, want %q then DELETED", seen, want)
			}
			l, _ := s.Served().Log(history.Resource{Version: "v1", Resource: "configmaps"})
			if n := len(l.Events); n < 3 || l.Events[n-1].Type != history.Deleted || l.Events[n-1].Object.Name != "made" {
				t.Errorf("truth: got %d events, the last %v, want the writes at its end", n, l.Events[n-1])
			}
		})
	}
}

// TestWritesReadOnly checks WithReadOnly keeps the 405 for every write.
func TestWritesReadOnly(t *testing.T) {
	s := New(listHistory(t), WithReadOnly())
	cs := writeClient(t, s, false)
	_, err := cs.CoreV1().ConfigMaps("a").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made"}}, metav1.CreateOptions{})
	if !apierrors.IsMethodNotSupported(err) {
		t.Errorf("Create on a read-only replay: got %v, want MethodNotAllowed", err)
	}
}

// newer reports whether integer resourceVersion a is after b.
func newer(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA == nil && errB == nil && x > y
}
