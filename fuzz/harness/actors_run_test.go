package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// tickingActor is an actor that calls do every period until its context
// ends.
func tickingActor(name string, period time.Duration, do func(ctx context.Context, cs kubernetes.Interface) error) actor.Actor {
	return actor.Actor{Name: name, Doc: "acts every " + period.String() + " (a test's fake)", Run: func(ctx context.Context, env actor.Env) error {
		cs, err := kubernetes.NewForConfig(env.Config)
		if err != nil {
			return err
		}
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
				_ = do(ctx, cs) // a refused write is a write all the same
			}
		}
	}}
}

// TestActorsEnd runs actors that keep acting beside a reading target.
// A run ends early (EndedEarly) once target and actors are quiet (actors:
// 30 s without a write). Reads, lease renewals and Events do not break the
// quiet. An actor that keeps changing the cluster's state keeps the run to
// the watchdog.
func TestActorsEnd(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	const dog = 2 * time.Minute
	labeller, _ := testutil.LabellingActor("labeller", nil)
	reads := tickingActor("reader", 10*time.Second, func(ctx context.Context, cs kubernetes.Interface) error {
		_, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
		return err
	})
	renews := tickingActor("renewer", 2*time.Second, func(ctx context.Context, cs kubernetes.Interface) error {
		_, err := cs.CoordinationV1().Leases("kube-system").Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{GenerateName: "lease-"}}, metav1.CreateOptions{})
		return err
	})
	tells := tickingActor("teller", 2*time.Second, func(ctx context.Context, cs kubernetes.Interface) error {
		_, err := cs.CoreV1().Events("default").Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{GenerateName: "event-"}}, metav1.CreateOptions{})
		return err
	})
	writes := tickingActor("writer", 10*time.Second, func(ctx context.Context, cs kubernetes.Interface) error {
		_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "tick-"}}, metav1.CreateOptions{})
		return err
	})
	tests := []struct {
		name   string
		actors []actor.Actor
		early  bool
	}{
		{name: "actors end - a labelling actor, done after its first pass - ends early - pass", actors: []actor.Actor{labeller}, early: true},
		{name: "actors end - an actor that lists every 10 s - ends early - pass", actors: []actor.Actor{reads}, early: true},
		{name: "actors end - an actor that renews a lease every 2 s - ends early - pass", actors: []actor.Actor{renews}, early: true},
		{name: "actors end - an actor that writes an Event every 2 s - ends early - pass", actors: []actor.Actor{tells}, early: true},
		{name: "actors end - an actor that creates a configmap every 10 s - runs to the watchdog - pass", actors: []actor.Actor{writes}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := Observe(t, Spec{History: h, Target: readingTarget(), WatchList: true, Watchdog: dog, Actors: tc.actors})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			if obs.EndedEarly != tc.early {
				t.Errorf("ended early: got %v (at %v), want %v", obs.EndedEarly, obs.EndedAt, tc.early)
			}
			if !tc.early && obs.EndedAt < dog {
				t.Errorf("ended at: got %v, want the watchdog %v or later", obs.EndedAt, dog)
			}
			// the labeller's last patch is at about 4.5 s (client-go's 5
			// requests a second); the others write nothing that counts
			if looked := obs.EndedAt - observe.StopGrace; tc.early && (looked < actorQuietEnd || looked > actorQuietEnd+10*time.Second) {
				t.Errorf("last look: got %v, want %v after the actors' last write (within 10 s of the start)", looked, actorQuietEnd)
			}
			if len(obs.ActorErrors) > 0 || obs.LeftGoroutines > 0 {
				t.Errorf("actors: got errors %v, %d goroutines left, want none", obs.ActorErrors, obs.LeftGoroutines)
			}
		})
	}
}

// orphaningTarget creates the configmaps default/parent and default/child
// (owned by parent), then deletes parent: the garbage collector's turn.
func orphaningTarget() Target {
	return Target{Name: "orphaning", Doc: "creates a parent and its child, deletes the parent", Run: func(ctx context.Context, env *Env) error {
		cs, err := env.Clientset()
		if err != nil {
			return err
		}
		cms := cs.CoreV1().ConfigMaps("default")
		parent, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "parent"}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "child", OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "v1", Kind: "ConfigMap", Name: "parent", UID: parent.UID}}}}
		if _, err := cms.Create(ctx, child, metav1.CreateOptions{}); err != nil {
			return err
		}
		if err := cms.Delete(ctx, "parent", metav1.DeleteOptions{}); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	}}
}

// TestActorsCollect runs a target that orphans a child. The replay's own
// garbage collector deletes it, unless an actor of the run collects
// (actor.Actor.Collects: replayer.WithoutGC). This idle actor does not.
func TestActorsCollect(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	idle := func(collects bool) actor.Actor {
		return actor.Actor{Name: "idle", Doc: "waits for its context (a test's fake)", Collects: collects,
			Run: func(ctx context.Context, _ actor.Env) error { <-ctx.Done(); return nil }}
	}
	tests := []struct {
		name      string
		actors    []actor.Actor
		collected bool
	}{
		{name: "actors collect - no actor - the replay collects the child - pass", collected: true},
		{name: "actors collect - an actor that does not collect - the replay collects the child - pass", actors: []actor.Actor{idle(false)}, collected: true},
		{name: "actors collect - an actor that collects (idle) - the child stays - pass", actors: []actor.Actor{idle(true)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := Observe(t, Spec{History: h, Target: orphaningTarget(), WatchList: true, Watchdog: 2 * time.Minute, Actors: tc.actors})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			_, alive := obs.TruthLog.ObjectAt("default/child", obs.TruthLog.End())
			if alive == tc.collected {
				t.Errorf("default/child at the end: got alive %v, want %v", alive, !tc.collected)
			}
		})
	}
}

// TestActorsTakeover runs an idle actor that takes over every configmap.
// The replay serves their initial state and none of their recorded events
// (history.Takeover). An actor that takes pods leaves them.
func TestActorsTakeover(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	recorded, _ := h.Log(ConfigMaps)
	if len(recorded.Events) == 0 {
		t.Fatal("recorded configmaps: got no events, want some to take over")
	}
	taking := func(resource string) actor.Actor {
		return actor.Actor{Name: "taking-" + resource, Doc: "takes every " + resource + " (a test's fake)",
			Takes: []actor.Takeover{{Resource: schema.GroupResource{Resource: resource}}},
			Run:   func(ctx context.Context, _ actor.Env) error { <-ctx.Done(); return nil }}
	}
	tests := []struct {
		name   string
		actor  actor.Actor
		events int
	}{
		{name: "actors takeover - every configmap - no recorded event served - pass", actor: taking("configmaps")},
		{name: "actors takeover - every pod - the configmaps' recorded events served - pass", actor: taking("pods"), events: len(recorded.Events)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := Observe(t, Spec{History: h, Target: readingTarget(), WatchList: true, Watchdog: 2 * time.Minute, Actors: []actor.Actor{tc.actor}})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			if got := len(obs.TruthLog.Events); got != tc.events || len(obs.TruthLog.Initial) != len(recorded.Initial) {
				t.Errorf("configmaps served: got %d initial, %d events, want %d, %d", len(obs.TruthLog.Initial), got, len(recorded.Initial), tc.events)
			}
			if obs.ConvergedAt < 0 {
				t.Errorf("converged at: got %v, want the store to reach the state served", obs.ConvergedAt)
			}
		})
	}
}

// raw is o's JSON, "" for none.
func raw(o *history.Object) string {
	if o == nil {
		return ""
	}
	return string(o.Raw)
}

// atRound sleeps until the virtual clock's next multiple of 10 s.
func atRound() { time.Sleep(time.Until(time.Now().Truncate(10 * time.Second).Add(10 * time.Second))) }

// contested creates default/contested, data who=by, at the clock's next
// multiple of 10 s.
func contested(ctx context.Context, cs kubernetes.Interface, by string) error {
	atRound()
	_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "contested"}, Data: map[string]string{"who": by}}, metav1.CreateOptions{})
	return err
}

// TestActorsOrder runs a target and an actor that create one configmap at
// one virtual instant, 20 times. The target's request reaches the replay
// first every time (an actor's take actorOffset longer). So the target's
// create is stored and the actor's refused.
func TestActorsOrder(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	creating := Target{Name: "creating", Doc: "creates default/contested at a round instant", Run: func(ctx context.Context, env *Env) error {
		cs, err := env.Clientset()
		if err != nil {
			return err
		}
		_ = contested(ctx, cs, "target") // the actor's refusal is the test's
		<-ctx.Done()
		return nil
	}}
	rival := actor.Actor{Name: "rival", Doc: "creates default/contested at a round instant (a test's fake)", Run: func(ctx context.Context, env actor.Env) error {
		cs, err := kubernetes.NewForConfig(env.Config)
		if err != nil {
			return err
		}
		_ = contested(ctx, cs, "actor")
		<-ctx.Done()
		return nil
	}}
	for i := range 20 {
		obs := Observe(t, Spec{History: h, Target: creating, WatchList: true, Watchdog: 2 * time.Minute, Actors: []actor.Actor{rival}})
		if obs == nil {
			t.Fatal("observation: got nil, want one")
		}
		o, ok := obs.TruthLog.ObjectAt("default/contested", obs.TruthLog.End())
		if !ok || !strings.Contains(string(o.Raw), `"who":"target"`) {
			t.Fatalf("run %d: default/contested: got %v (%s), want the target's", i, ok, raw(o))
		}
	}
}

// labelDefaulter defaults a configmap's data with defaulted=yes.
type labelDefaulter struct{}

// Default sets data defaulted=yes on a configmap.
func (labelDefaulter) Default(in runtime.Object) {
	if cm, ok := in.(*corev1.ConfigMap); ok {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data["defaulted"] = "yes"
	}
}

// TestActorsDefaults runs a target that creates a configmap and patches
// it. The replay defaults the writes of built-in kinds when an actor of
// the run supplies Defaults (replayer.WithDefaulter), not otherwise.
func TestActorsDefaults(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	making := Target{Name: "making", Doc: "creates and patches default/made", Run: func(ctx context.Context, env *Env) error {
		cs, err := env.Clientset()
		if err != nil {
			return err
		}
		if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made"}}, metav1.CreateOptions{}); err != nil {
			return err
		}
		if _, err := cs.CoreV1().ConfigMaps("default").Patch(ctx, "made", types.MergePatchType, []byte(`{"data":{"k":"v"}}`), metav1.PatchOptions{}); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	}}
	defaulting := actor.Actor{Name: "defaulting", Doc: "defaults configmaps (a test's fake)", Defaults: labelDefaulter{},
		Run: func(ctx context.Context, _ actor.Env) error { <-ctx.Done(); return nil }}
	tests := []struct {
		name      string
		actors    []actor.Actor
		defaulted bool
	}{
		{name: "actors defaults - an actor that supplies Defaults - the configmap defaulted - pass", actors: []actor.Actor{defaulting}, defaulted: true},
		{name: "actors defaults - no actor - the configmap as sent - pass"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := Observe(t, Spec{History: h, Target: making, WatchList: true, Watchdog: 2 * time.Minute, Actors: tc.actors})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			o, ok := obs.TruthLog.ObjectAt("default/made", obs.TruthLog.End())
			if got := ok && strings.Contains(string(o.Raw), `"defaulted":"yes"`); got != tc.defaulted {
				t.Errorf("default/made defaulted: got %v (%s), want %v", got, raw(o), tc.defaulted)
			}
		})
	}
}

// TestActorsKubelet runs a target that creates a scheduled pod and deletes
// it. With a kubelet among the actors (this one idle) the replay keeps it
// terminating (replayer.WithGracefulDeletion); else it is gone.
func TestActorsKubelet(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	deleting := Target{Name: "deleting", Doc: "creates and deletes default/doomed, a scheduled pod", Run: func(ctx context.Context, env *Env) error {
		cs, err := env.Clientset()
		if err != nil {
			return err
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}, Spec: corev1.PodSpec{NodeName: "node-1",
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
		if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return err
		}
		if err := cs.CoreV1().Pods("default").Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	}}
	kubelet := actor.Actor{Name: "kubelet", Doc: "a kubelet that finishes nothing (a test's fake)", Kubelet: true,
		Run: func(ctx context.Context, _ actor.Env) error { <-ctx.Done(); return nil }}
	pods := history.Resource{Version: "v1", Resource: "pods"}
	tests := []struct {
		name   string
		actors []actor.Actor
		kept   bool
	}{
		{name: "actors kubelet - a kubelet actor - the deleted pod kept, terminating - pass", actors: []actor.Actor{kubelet}, kept: true},
		{name: "actors kubelet - no actor - the deleted pod gone - pass"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := Observe(t, Spec{History: h, Target: deleting, WatchList: true, Watchdog: 2 * time.Minute, Actors: tc.actors})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			l, ok := obs.Served.Log(pods)
			if !ok {
				t.Fatal("served pods: got no log, want one")
			}
			o, alive := l.ObjectAt("default/doomed", l.End())
			if alive != tc.kept || (alive && !strings.Contains(string(o.Raw), `"deletionTimestamp"`)) {
				t.Errorf("default/doomed at the end: got alive %v (%s), want %v, terminating", alive, raw(o), tc.kept)
			}
		})
	}
}
