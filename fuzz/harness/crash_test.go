package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// seenAnnotation is what annotatingTarget writes on every configmap.
const seenAnnotation = "lwreplay.test/seen"

// annotatingTarget is a level-based controller: an informer of configmaps
// and one worker. The worker updates each configmap its cache holds without
// seenAnnotation to carry it, reading the object from its cache each time.
// A crash between two of its writes leaves nothing it cannot finish.
func annotatingTarget() Target {
	return Target{Name: "annotating", Doc: "an informer whose worker annotates every configmap", Run: func(ctx context.Context, env *Env) error {
		cs, err := env.Clientset()
		if err != nil {
			return err
		}
		factory := informers.NewSharedInformerFactory(cs, 0)
		inf := factory.Core().V1().ConfigMaps().Informer()
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
		defer q.ShutDown()
		enqueue := func(obj any) {
			if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
				q.Add(key)
			}
		}
		if _, err := env.Probe.AddEventHandler(inf, cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }}); err != nil {
			return err
		}
		factory.Start(ctx.Done())
		defer factory.Shutdown()
		if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			return nil
		}
		go func() {
			<-ctx.Done()
			q.ShutDown()
		}()
		for {
			key, quit := q.Get()
			if quit {
				return nil
			}
			obj, ok, err := inf.GetStore().GetByKey(key)
			if err == nil && ok {
				cm := obj.(*corev1.ConfigMap)
				if cm.Annotations[seenAnnotation] == "" {
					cm = cm.DeepCopy()
					if cm.Annotations == nil {
						cm.Annotations = map[string]string{}
					}
					cm.Annotations[seenAnnotation] = "yes"
					_, err = cs.CoreV1().ConfigMaps(cm.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
				}
			}
			if err != nil && ctx.Err() == nil {
				q.AddRateLimited(key)
			} else {
				q.Forget(key)
			}
			q.Done(key)
		}
	}}
}

// TestCrashAfterWrite runs annotatingTarget under crash-after-write on both
// client paths. It checks that:
//   - the fault fires at the write it names;
//   - the instance that wrote sends nothing more (the replay logs no write
//     of it after the crash);
//   - a fresh instance starts and syncs;
//   - every configmap ends annotated by exactly one stored update;
//   - every invariant holds.
func TestCrashAfterWrite(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	tests := []struct {
		name      string
		plan      string
		watchList bool
		crashes   int
		stale     bool // the fresh instance's first LIST is stale: its update of a configmap written before the crash gets 409
	}{
		{name: "crash after write - no fault - no crash, every configmap annotated once - pass", watchList: true},
		{name: "crash after write - after write #1, WatchList - one crash, every configmap annotated once - pass", plan: "crash-after-write:write=1", watchList: true, crashes: 1},
		{name: "crash after write - after write #3, LIST+WATCH - one crash, every configmap annotated once - pass", plan: "crash-after-write:write=3", crashes: 1},
		{name: "crash after write - after writes #2 and #5 - two crashes, every configmap annotated once - pass", plan: "crash-after-write:write=2 crash-after-write:write=5", watchList: true, crashes: 2},
		{name: "crash after write - after write #1, the fresh instance's LIST from a snapshot before it, its watch 10 s behind (Sieve's stale state) - every configmap annotated once - pass",
			plan: "crash-after-write:write=1 stale-list:list=2,back=3 delay:ms=10000,watch=2,frame=1", crashes: 1, stale: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := faults.ParseText(tc.plan)
			if err != nil {
				t.Fatalf("plan %q: got %v, want none", tc.plan, err)
			}
			obs := Observe(t, Spec{History: h, Plan: plan, Target: annotatingTarget(), WatchList: tc.watchList, Watchdog: 2 * time.Minute})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			if len(obs.Crashes) != tc.crashes {
				t.Fatalf("crashes: got %v, want %d", obs.Crashes, tc.crashes)
			}
			fired := 0
			for _, f := range obs.Fired {
				if f.Fault == "crash-after-write" {
					fired++
				}
			}
			if tc.stale {
				staleFired, conflicts := false, 0
				for _, f := range obs.Fired {
					staleFired = staleFired || (f.Fault == "stale-list" && f.At >= obs.Crashes[0])
				}
				for _, w := range obs.Writes {
					if w.Reason == "Conflict" {
						conflicts++
					}
				}
				if !staleFired || conflicts == 0 {
					t.Errorf("stale state: got stale-list fired after the crash %v, %d conflicts, want both (the fresh instance saw the configmap before its write)", staleFired, conflicts)
				}
			}
			if fired != tc.crashes {
				t.Errorf("firings of crash-after-write: got %d (%v), want %d", fired, obs.Fired, tc.crashes)
			}
			// every configmap annotated, each by one stored update
			updates := map[string]int{}
			for _, w := range obs.Writes {
				if w.Stored() {
					updates[w.Key]++
				}
			}
			final := obs.TruthLog.StateAt(obs.TruthLog.End())
			for _, o := range final {
				if n := updates[o.Key()]; n != 1 {
					t.Errorf("stored updates of %s: got %d, want 1", o.Key(), n)
				}
				if !strings.Contains(string(o.Raw), fmt.Sprintf("%q", seenAnnotation)) {
					t.Errorf("final %s: got no %s annotation, want it", o.Key(), seenAnnotation)
				}
			}
			if len(updates) != len(final) {
				t.Errorf("objects written: got %d, want the %d of the final state", len(updates), len(final))
			}
			// the crashed instance wrote nothing after its crash: the next
			// write comes after the fresh instance synced
			for _, at := range obs.Crashes {
				for _, w := range obs.Writes {
					if w.At > at && w.At < at+time.Millisecond {
						t.Errorf("write %v: got it right after the crash at %v, want none before the fresh instance syncs", w, at)
					}
				}
			}
			if tc.crashes > 0 && obs.SyncedAt < obs.Crashes[len(obs.Crashes)-1] {
				t.Errorf("synced at: got %v, want at or after the last crash at %v (the fresh instance's sync)", obs.SyncedAt, obs.Crashes[len(obs.Crashes)-1])
			}
			for name, err := range oracle.Judge(obs) {
				if err != nil && !errors.Is(err, oracle.ErrNotJudged) {
					t.Errorf("%s: got %v, want it to hold", name, err)
				}
			}
		})
	}
}
