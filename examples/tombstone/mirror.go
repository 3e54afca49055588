// Package tombstone is an example controller with a planted, realistic bug
// that lwreplay finds: a configmap mirror whose delete handler type-asserts
// its argument to *corev1.ConfigMap. A watch may end, and the informer relist
// across a delete it never saw. Then client-go hands the handler a
// cache.DeletedFinalStateUnknown tombstone instead, and the assertion panics.
// HandleDelete is the fixed handler; docs/tutorial.md tells the story.
package tombstone

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// ErrRegister is returned by Run when the mirror's handlers cannot be
// added to its informer.
var ErrRegister = errors.New("tombstone: register handlers")

// Mirror keeps a copy of every configmap's data, keyed by
// "namespace/name", fed by a shared informer's handlers.
type Mirror struct {
	factory  informers.SharedInformerFactory
	informer cache.SharedIndexInformer
	onPanic  func(recovered, obj any)
	fixed    bool

	mu   sync.Mutex
	data map[string]map[string]string
}

// Option configures a Mirror.
type Option func(*Mirror)

// WithPanicHandler makes the mirror recover a panic of its delete
// handler, and report it to f with the object the handler was given. Else
// it would crash the process: client-go re-panics a handler's panic. It
// exists only so that tests can observe the planted crash; a real
// controller has no such option.
func WithPanicHandler(f func(recovered, obj any)) Option {
	return func(m *Mirror) { m.onPanic = f }
}

// WithFixedDelete makes the mirror use HandleDelete, which unwraps
// tombstones, instead of the planted delete handler.
func WithFixedDelete() Option {
	return func(m *Mirror) { m.fixed = true }
}

// New returns a mirror of every configmap client can see; Run starts it.
func New(client kubernetes.Interface, opts ...Option) *Mirror {
	f := informers.NewSharedInformerFactory(client, 0)
	m := &Mirror{
		factory:  f,
		informer: f.Core().V1().ConfigMaps().Informer(),
		data:     map[string]map[string]string{},
	}
	for _, o := range opts {
		o(m)
	}
	return m
}

// NewFromListerWatcher returns a mirror of the configmaps lw lists and
// watches (objects of type *corev1.ConfigMap), for tests that drive the
// mirror without a clientset.
func NewFromListerWatcher(lw cache.ListerWatcher, opts ...Option) *Mirror {
	m := &Mirror{
		informer: cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{}),
		data:     map[string]map[string]string{},
	}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Run registers the mirror's handlers, starts its informer and blocks
// until ctx is done and the informer has stopped.
func (m *Mirror) Run(ctx context.Context) error {
	del := m.handleDelete
	if m.fixed {
		del = m.HandleDelete
	}
	if m.onPanic != nil {
		del = m.recovering(del)
	}
	_, err := m.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    m.handleAdd,
		UpdateFunc: func(_, obj any) { m.handleAdd(obj) },
		DeleteFunc: del,
	})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRegister, err)
	}
	if m.factory == nil {
		m.informer.RunWithContext(ctx)
		return nil
	}
	m.factory.Start(ctx.Done())
	<-ctx.Done()
	m.factory.Shutdown()
	return nil
}

// HasSynced reports whether the mirror's informer has delivered its first
// full state.
func (m *Mirror) HasSynced() bool { return m.informer.HasSynced() }

// Snapshot returns a copy of the mirror: configmap data by
// "namespace/name".
func (m *Mirror) Snapshot() map[string]map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]map[string]string, len(m.data))
	for k, v := range m.data {
		out[k] = maps.Clone(v)
	}
	return out
}

// handleAdd records a configmap that was added or updated.
func (m *Mirror) handleAdd(obj any) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d := maps.Clone(cm.Data)
	if d == nil {
		d = map[string]string{}
	}
	m.data[cm.Namespace+"/"+cm.Name] = d
}

// handleDelete is the planted bug: it assumes a delete notification always
// carries a *corev1.ConfigMap. After a relist that misses a delete,
// client-go delivers a cache.DeletedFinalStateUnknown tombstone instead,
// and the assertion panics.
func (m *Mirror) handleDelete(obj any) {
	cm := obj.(*corev1.ConfigMap)
	m.forget(cm.Namespace + "/" + cm.Name)
}

// HandleDelete is the fixed delete handler. It unwraps a
// cache.DeletedFinalStateUnknown tombstone, whose key is enough to forget
// the configmap. It ignores anything else it does not know.
func (m *Mirror) HandleDelete(obj any) {
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		m.forget(o.Namespace + "/" + o.Name)
	case cache.DeletedFinalStateUnknown:
		m.forget(o.Key)
	}
}

// forget removes a configmap from the mirror.
func (m *Mirror) forget(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.data, key)
}

// recovering wraps a delete handler so that a panic is reported to the
// mirror's panic handler instead of crashing the process.
func (m *Mirror) recovering(del func(any)) func(any) {
	return func(obj any) {
		defer func() {
			if r := recover(); r != nil {
				m.onPanic(r, obj)
			}
		}()
		del(obj)
	}
}
