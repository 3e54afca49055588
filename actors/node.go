package actors

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"

	"github.com/lwreplay/lwreplay/actor"
)

// NodeActors returns the actors that stand in for kube-scheduler, the
// nodes' kubelets and a storage provisioner, each with its defaults.
// They come in the order they start: "volume-provisioner", "scheduler",
// "kubelet".
func NodeActors() []actor.Actor {
	return []actor.Actor{Provisioner(), Scheduler(), Kubelet(KubeletConfig{})}
}

// clientFor returns a clientset for env's replay as actor name: env's
// config, its User-Agent naming the actor when env names none.
func clientFor(env actor.Env, name string) (kubernetes.Interface, error) {
	if env.Config == nil {
		return nil, fmt.Errorf("actor %s: no config", name)
	}
	cfg := rest.CopyConfig(env.Config)
	if cfg.UserAgent == "" {
		cfg.UserAgent = actor.UserAgent(name)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("actor %s: client: %w", name, err)
	}
	return cs, nil
}

// keyQueue is a rate-limited queue of object keys worked by one
// goroutine, as a kube-controller-manager controller with one worker. One
// worker keeps the order of writes a function of the order of events.
type keyQueue struct {
	q  workqueue.TypedRateLimitingInterface[string]
	wg sync.WaitGroup
}

// newKeyQueue returns a keyQueue named name.
func newKeyQueue(name string) *keyQueue {
	return &keyQueue{q: workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: name},
	)}
}

// add queues key now.
func (k *keyQueue) add(key string) { k.q.Add(key) }

// addAfter queues key after d (virtual time in a bubble).
func (k *keyQueue) addAfter(key string, d time.Duration) { k.q.AddAfter(key, d) }

// run works the queue with sync until ctx ends; a key whose sync fails
// is retried with the controllers' default backoff. It returns once its
// worker has returned.
func (k *keyQueue) run(ctx context.Context, sync func(context.Context, string) error) {
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		for {
			key, quit := k.q.Get()
			if quit {
				return
			}
			if err := sync(ctx, key); err != nil && ctx.Err() == nil {
				k.q.AddRateLimited(key)
			} else {
				k.q.Forget(key)
			}
			k.q.Done(key)
		}
	}()
	<-ctx.Done()
	k.q.ShutDown()
	k.wg.Wait()
}

// delays holds back a step on an object until d after it first became due,
// as kwok's stages wait their delay. So actors that react to one event
// write at distinct instants of virtual time. Their order does not depend
// on how their goroutines are scheduled. Its one worker owns it.
type delays struct {
	d  time.Duration
	at map[string]dueAt
}

// dueAt is when the step of one object (by UID) is due.
type dueAt struct {
	uid string
	at  time.Time
}

// newDelays returns delays of d.
func newDelays(d time.Duration) *delays { return &delays{d: d, at: map[string]dueAt{}} }

// due reports whether the step of key's object uid may happen now. The
// first time it is asked, it queues key again for when it will.
func (s *delays) due(q *keyQueue, key, uid string) bool {
	if s.d <= 0 {
		return true
	}
	now := time.Now()
	a, ok := s.at[key]
	if !ok || a.uid != uid {
		s.at[key] = dueAt{uid: uid, at: now.Add(s.d)}
		q.addAfter(key, s.d)
		return false
	}
	if now.Before(a.at) {
		return false // queued for a.at already
	}
	delete(s.at, key)
	return true
}

// clear forgets key's step: it is no longer due.
func (s *delays) clear(key string) { delete(s.at, key) }
