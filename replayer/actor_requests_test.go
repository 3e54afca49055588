package replayer

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/history"
)

// actorClient is a typed client of s as the actor name (the target's
// when name is "").
func actorClient(t *testing.T, s *Server, name string) kubernetes.Interface {
	t.Helper()
	cfg := &rest.Config{Host: "http://replay.invalid", Transport: s.TransportAs(name)}
	cfg.ContentType = "application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("NewForConfig: got error %v, want none", err)
	}
	return cs
}

// writersOf returns the Location File of every event of the truth's
// configmaps log that no recording made, by key.
func writersOf(s *Server) map[string]string {
	out := map[string]string{}
	for _, e := range s.Served().Logs[0].Events {
		if e.From.Event == -1 {
			out[e.Object.Key()] = e.From.File
		}
	}
	return out
}

// TestActorWrites creates a configmap as the target or as an actor. Both
// are in the truth, From the writer's location. Only the target's is in
// the write log. An actor's LIST completes no listing of the target's.
func TestActorWrites(t *testing.T) {
	tests := []struct {
		name       string
		actor      string
		wantFrom   string
		wantWrites int
		wantListed bool
	}{
		{name: "actor writes - the target's create - logged, From write - pass", wantFrom: history.TargetWrite, wantWrites: 1, wantListed: true},
		{name: "actor writes - an actor's create - in the truth, not logged - pass", actor: "statefulset", wantFrom: "actor/statefulset"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(listHistory(t))
			cms := actorClient(t, s, tc.actor).CoreV1().ConfigMaps("a")
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made"}}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create: got error %v, want none", err)
			}
			if _, err := cms.List(ctx, metav1.ListOptions{}); err != nil {
				t.Fatalf("list: got error %v, want none", err)
			}
			if got := writersOf(s)["a/made"]; got != tc.wantFrom {
				t.Errorf("a/made in the truth: got From %q, want %q", got, tc.wantFrom)
			}
			if got := len(s.Writes()); got != tc.wantWrites {
				t.Errorf("write log: got %d writes, want %d", got, tc.wantWrites)
			}
			for _, e := range s.Served().Logs[0].Events {
				if e.Object.Key() != "a/made" {
					continue
				}
				name, ok := e.ByActor()
				if ok != (tc.actor != "") || name != tc.actor || e.ByTarget() == ok {
					t.Errorf("a/made's event: got ByActor %q %v, ByTarget %v, want actor %q", name, ok, e.ByTarget(), tc.actor)
				}
			}
			if _, got := s.FirstListing(s.Served().Logs[0].Resource); got != tc.wantListed {
				t.Errorf("FirstListing: got listed %v, want %v (an actor's listing is not the target's)", got, tc.wantListed)
			}
		})
	}
}

// TestFaultsOnActors answers a LIST of an actor and then one of the
// target's under a plan failing the first LIST. By default the fault
// strikes the target's; the actor's reaches no point. With
// WithFaultsOnActors it strikes the actor's, which is the first.
func TestFaultsOnActors(t *testing.T) {
	tests := []struct {
		name                     string
		onActors                 bool
		wantActorErr, wantTgtErr bool
		wantFired                int
	}{
		{name: "faults on actors - off - the target's list fails - pass", wantTgtErr: true, wantFired: 1},
		{name: "faults on actors - on - the actor's list fails - pass", onActors: true, wantActorErr: true, wantFired: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(listHistory(t), WithPlan(mustPlan(t, "http-error:code=500,list=1")), WithFaultsOnActors(tc.onActors))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			_, err := actorClient(t, s, "kubelet").CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
			if got := err != nil; got != tc.wantActorErr {
				t.Errorf("the actor's list: got error %v, want failed %v", err, tc.wantActorErr)
			}
			_, err = actorClient(t, s, "").CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
			if got := err != nil; got != tc.wantTgtErr {
				t.Errorf("the target's list: got error %v, want failed %v", err, tc.wantTgtErr)
			}
			if got := s.FiredCount(); got != tc.wantFired {
				t.Errorf("fired: got %d (%v), want %d", got, firedStrings(s.Fired()), tc.wantFired)
			}
		})
	}
}

// TestFaultsOnActorsNoCrash strikes an actor's write with
// crash-after-write under WithFaultsOnActors. The write reaches its
// point, but a fault that ends the target's process does not act there.
func TestFaultsOnActorsNoCrash(t *testing.T) {
	tests := []struct {
		name      string
		actor     string
		wantCalls int
	}{
		{name: "crash-after-write - the target's write - crashes - pass", wantCalls: 1},
		{name: "crash-after-write - an actor's write - does not act - pass", actor: "scheduler"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			s := New(listHistory(t), WithPlan(mustPlan(t, "crash-after-write:write=1")), WithFaultsOnActors(true), WithHooks(Hooks{TargetCrash: func() { calls++ }}))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if _, err := actorClient(t, s, tc.actor).CoreV1().ConfigMaps("a").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made"}}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create: got error %v, want none", err)
			}
			if calls != tc.wantCalls {
				t.Errorf("crash: got %d calls, want %d", calls, tc.wantCalls)
			}
		})
	}
}

// TestWithoutGC creates, as the target and as an actor, a child whose
// owner the recording deletes. The replay's collector deletes it. Under
// WithoutGC it leaves it an orphan.
func TestWithoutGC(t *testing.T) {
	var owner types.UID
	for _, o := range listHistory(t).Logs[0].Initial {
		if o.Key() == "b/two" {
			owner = types.UID(o.UID)
		}
	}
	tests := []struct {
		name     string
		actor    string
		noGC     bool
		wantKept bool
	}{
		{name: "without gc - the target's orphan - collected by default - pass"},
		{name: "without gc - an actor's orphan - collected by default - pass", actor: "replicaset"},
		{name: "without gc - the target's orphan - kept - pass", noGC: true, wantKept: true},
		{name: "without gc - an actor's orphan - kept - pass", actor: "replicaset", noGC: true, wantKept: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.noGC {
				opts = append(opts, WithoutGC())
			}
			s := New(listHistory(t), opts...)
			cms := actorClient(t, s, tc.actor).CoreV1().ConfigMaps("a")
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			refs := []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "two", UID: owner}}
			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "child", OwnerReferences: refs}}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create: got error %v, want none", err)
			}
			_, err := cms.Get(ctx, "child", metav1.GetOptions{})
			if kept := err == nil; kept != tc.wantKept {
				t.Errorf("child: got kept %v (get: %v), want %v", kept, err, tc.wantKept)
			}
			if got, want := s.Collected(), map[bool]int{true: 0, false: 1}[tc.wantKept]; got != want {
				t.Errorf("Collected: got %d, want %d", got, want)
			}
		})
	}
}

// TestActorBinds has the target create a pod and a scheduler actor bind
// it (pods/binding). The pod is assigned in the truth by an event From
// the scheduler. Only the target's create is in the write log. A second
// binding is refused 409.
func TestActorBinds(t *testing.T) {
	tests := []struct {
		name     string
		binds    int
		wantNode string
		wantErrs int
	}{
		{name: "actor binds - one binding - assigned - pass", binds: 1, wantNode: "node-1"},
		{name: "actor binds - a second binding - conflict - fail", binds: 2, wantNode: "node-1", wantErrs: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(listHistory(t))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
			if _, err := actorClient(t, s, "").CoreV1().Pods("a").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create: got error %v, want none", err)
			}
			sched := actorClient(t, s, "scheduler").CoreV1().Pods("a")
			errs := 0
			for range tc.binds {
				b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}
				if err := sched.Bind(ctx, b, metav1.CreateOptions{}); err != nil {
					errs++
				}
			}
			if errs != tc.wantErrs {
				t.Errorf("bindings refused: got %d, want %d", errs, tc.wantErrs)
			}
			got, err := sched.Get(ctx, "p", metav1.GetOptions{})
			if err != nil || got.Spec.NodeName != tc.wantNode {
				t.Fatalf("pod: got nodeName %q (err %v), want %q", got.Spec.NodeName, err, tc.wantNode)
			}
			var from []string
			for _, l := range s.Served().Logs {
				if l.Resource.Resource != "pods" {
					continue
				}
				for _, e := range l.Events {
					from = append(from, e.From.File)
				}
			}
			if want := []string{history.TargetWrite, "actor/scheduler"}; len(from) != 2 || from[0] != want[0] || from[1] != want[1] {
				t.Errorf("pod events From: got %v, want %v", from, want)
			}
			if got := len(s.Writes()); got != 1 {
				t.Errorf("write log: got %d writes, want 1 (the scheduler's are not the target's)", got)
			}
		})
	}
}

// TestGracefulPodDeletion deletes a scheduled pod as the target, then,
// as a kubelet actor, with grace 0. Under WithGracefulDeletion the
// target's delete keeps it terminating. The kubelet's removes it (marked,
// then deleted). Without it, the target's delete removes it.
func TestGracefulPodDeletion(t *testing.T) {
	tests := []struct {
		name       string
		graceful   bool
		wantKept   bool     // after the target's delete
		wantEvents []string // the pod's events: type From
	}{
		{name: "graceful pod deletion - on - kept until the kubelet deletes it - pass", graceful: true, wantKept: true,
			wantEvents: []string{"ADDED write", "MODIFIED write", "MODIFIED actor/kubelet", "DELETED actor/kubelet"}},
		{name: "graceful pod deletion - off - deleted at once - pass",
			wantEvents: []string{"ADDED write", "DELETED write"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.graceful {
				opts = append(opts, WithGracefulDeletion())
			}
			s := New(listHistory(t), opts...)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			target := actorClient(t, s, "").CoreV1().Pods("a")
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
			if _, err := target.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create: got error %v, want none", err)
			}
			if err := target.Delete(ctx, "p", metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete: got error %v, want none", err)
			}
			got, err := target.Get(ctx, "p", metav1.GetOptions{})
			if kept := err == nil; kept != tc.wantKept {
				t.Fatalf("after the target's delete: got kept %v (err %v), want %v", kept, err, tc.wantKept)
			}
			if tc.wantKept {
				if got.DeletionTimestamp == nil || got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 30 {
					t.Errorf("terminating pod: got deletionTimestamp %v grace %v, want set, 30", got.DeletionTimestamp, got.DeletionGracePeriodSeconds)
				}
				zero := int64(0)
				if err := actorClient(t, s, "kubelet").CoreV1().Pods("a").Delete(ctx, "p", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
					t.Fatalf("the kubelet's delete: got error %v, want none", err)
				}
			}
			var evs []string
			for _, l := range s.Served().Logs {
				if l.Resource.Resource == "pods" {
					for _, e := range l.Events {
						evs = append(evs, string(e.Type)+" "+e.From.File)
					}
				}
			}
			if len(evs) != len(tc.wantEvents) {
				t.Fatalf("pod events: got %v, want %v", evs, tc.wantEvents)
			}
			for i := range evs {
				if evs[i] != tc.wantEvents[i] {
					t.Errorf("pod event %d: got %q, want %q", i, evs[i], tc.wantEvents[i])
				}
			}
			if got := len(s.Writes()); got != 2 {
				t.Errorf("write log: got %d writes, want 2 (the target's create and delete)", got)
			}
		})
	}
}

// TestGracefulCollected has the replay's garbage collector delete a
// scheduled pod whose owner the recording deletes. Under
// WithGracefulDeletion it is kept terminating. It is left alone while it
// is (no event per later request). Without it, it is deleted.
func TestGracefulCollected(t *testing.T) {
	var owner types.UID
	for _, o := range listHistory(t).Logs[0].Initial {
		if o.Key() == "b/two" {
			owner = types.UID(o.UID)
		}
	}
	tests := []struct {
		name       string
		graceful   bool
		wantEvents []string
	}{
		{name: "graceful collected - on - kept terminating - pass", graceful: true, wantEvents: []string{"ADDED write", "MODIFIED garbage-collector"}},
		{name: "graceful collected - off - deleted - pass", wantEvents: []string{"ADDED write", "DELETED garbage-collector"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.graceful {
				opts = append(opts, WithGracefulDeletion())
			}
			s := New(listHistory(t), opts...)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			pods := actorClient(t, s, "").CoreV1().Pods("a")
			refs := []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "two", UID: owner}}
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", OwnerReferences: refs}, Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
			if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create: got error %v, want none", err)
			}
			for range 3 { // each request is a round of the collector
				_, _ = pods.Get(ctx, "p", metav1.GetOptions{})
			}
			var evs []string
			for _, l := range s.Served().Logs {
				if l.Resource.Resource == "pods" {
					for _, e := range l.Events {
						evs = append(evs, string(e.Type)+" "+e.From.File)
					}
				}
			}
			if fmt.Sprint(evs) != fmt.Sprint(tc.wantEvents) {
				t.Errorf("pod events: got %v, want %v", evs, tc.wantEvents)
			}
		})
	}
}
