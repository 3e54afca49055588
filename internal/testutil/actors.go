package testutil

import (
	"context"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/actor"
)

// ActorLabel is the label LabellingActor puts on every configmap: its
// value is the actor's name.
const ActorLabel = "lwreplay.test/actor"

// ActorLog is what a LabellingActor's runs did, for a test to check.
type ActorLog struct {
	mu       sync.Mutex
	starts   int
	returns  int
	ctxDone  bool
	labelled []string
}

// Counts returns how often its Run was called and returned, whether its
// context was done when it last returned, and the keys it labelled.
func (l *ActorLog) Counts() (starts, returns int, ctxDone bool, labelled []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.starts, l.returns, l.ctxDone, append([]string(nil), l.labelled...)
}

// LabellingActor returns an actor that labels every configmap its
// informer holds with ActorLabel, as a controller writes status. It
// writes a merge patch, through its Env.Config. It is a fake of the
// cluster's own controllers for tests of the main module, which cannot
// import the actors module. Once its informer has synced, and again
// whenever it is told of a change, one goroutine patches the configmaps
// that lack the label, in key order. So what it sends is a function of
// what it holds, not of the order client-go's goroutines run in. With
// fail set, its Run returns fail at once (it cannot start). It takes over
// nothing.
func LabellingActor(name string, fail error) (actor.Actor, *ActorLog) {
	log := &ActorLog{}
	run := func(ctx context.Context, env actor.Env) (err error) {
		log.mu.Lock()
		log.starts++
		log.mu.Unlock()
		defer func() {
			log.mu.Lock()
			log.returns++
			log.ctxDone = ctx.Err() != nil
			log.mu.Unlock()
		}()
		if fail != nil {
			return fail
		}
		cs, err := kubernetes.NewForConfig(env.Config)
		if err != nil {
			return err
		}
		factory := informers.NewSharedInformerFactory(cs, 0)
		inf := factory.Core().V1().ConfigMaps().Informer()
		changed := make(chan struct{}, 1)
		poke := func(any) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: poke, UpdateFunc: func(_, o any) { poke(o) }}); err != nil {
			return err
		}
		factory.Start(ctx.Done())
		defer factory.Shutdown()
		if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			return nil
		}
		patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, ActorLabel, name))
		done := map[string]bool{} // patched: its echo may not have reached the store yet
		for {
			keys := inf.GetStore().ListKeys()
			slices.Sort(keys)
			for _, key := range keys {
				obj, ok, _ := inf.GetStore().GetByKey(key)
				if cm, isCM := obj.(*corev1.ConfigMap); !ok || !isCM || cm.Labels[ActorLabel] == name || done[key] {
					continue
				}
				ns, n, _ := cache.SplitMetaNamespaceKey(key)
				if _, err := cs.CoreV1().ConfigMaps(ns).Patch(ctx, n, types.MergePatchType, patch, metav1.PatchOptions{}); err == nil {
					done[key] = true
					log.mu.Lock()
					log.labelled = append(log.labelled, key)
					log.mu.Unlock()
				}
			}
			select {
			case <-ctx.Done():
				return nil
			case <-changed:
			}
		}
	}
	return actor.Actor{Name: name, Doc: "labels every configmap with " + ActorLabel + " (a test's fake)", Run: run}, log
}
