package differential

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// Resources are the kinds the scripts and the cluster's controllers touch:
// a Recorder lists and watches each.
var Resources = []schema.GroupVersionResource{
	{Version: "v1", Resource: "namespaces"},
	{Version: "v1", Resource: "services"},
	{Version: "v1", Resource: "configmaps"},
	{Version: "v1", Resource: "pods"},
	{Version: "v1", Resource: "persistentvolumeclaims"},
	{Version: "v1", Resource: "persistentvolumes"},
	{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"},
	{Group: "apps", Version: "v1", Resource: "statefulsets"},
	{Group: "apps", Version: "v1", Resource: "deployments"},
	{Group: "apps", Version: "v1", Resource: "replicasets"},
	{Group: "apps", Version: "v1", Resource: "controllerrevisions"},
	{Group: "batch", Version: "v1", Resource: "jobs"},
}

// Event types a Recorder notes.
const (
	Added    = "ADDED"
	Modified = "MODIFIED"
	Deleted  = "DELETED"
)

// Event is one change a Recorder saw.
type Event struct {
	// Resource is the resource's name (pods, statefulsets).
	Resource string
	// Type is Added, Modified or Deleted.
	Type string
	// Object is the object as the event carried it.
	Object *unstructured.Unstructured
}

// Recorder lists and watches Resources through informers and keeps every
// event about the scripts' objects (InScripts), in the order each kind's
// informer delivered them.
type Recorder struct {
	cancel  context.CancelFunc
	factory dynamicinformer.DynamicSharedInformerFactory

	mu     sync.Mutex
	events []Event
}

// StartRecorder starts a Recorder through cfg and returns once every
// informer has listed.
func StartRecorder(ctx context.Context, cfg *rest.Config) (*Recorder, error) {
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("differential: recorder client: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &Recorder{cancel: cancel, factory: dynamicinformer.NewDynamicSharedInformerFactory(dc, 0)}
	for _, gvr := range Resources {
		res := gvr.Resource
		h := cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { r.note(res, Added, obj) },
			UpdateFunc: func(_, obj any) { r.note(res, Modified, obj) },
			DeleteFunc: func(obj any) { r.note(res, Deleted, obj) },
		}
		if _, err := r.factory.ForResource(gvr).Informer().AddEventHandler(h); err != nil {
			cancel()
			return nil, fmt.Errorf("differential: %s handler: %w", res, err)
		}
	}
	r.factory.Start(ctx.Done())
	for gvr, ok := range r.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			r.Stop()
			return nil, fmt.Errorf("differential: %s never listed: %w", gvr.Resource, context.Cause(ctx))
		}
	}
	return r, nil
}

// note keeps an event about one of the scripts' objects.
func (r *Recorder) note(res, typ string, obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || !InScripts(res, u) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, Event{Resource: res, Type: typ, Object: u.DeepCopy()})
}

// Stop stops the informers, waits for them, and returns the events.
func (r *Recorder) Stop() []Event {
	r.cancel()
	r.factory.Shutdown()
	return r.Events()
}

// Events returns the events so far.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// scriptPrefix starts every script's namespace.
const scriptPrefix = "diff-"

// InScripts reports whether an object of resource res belongs to a
// script. It does when it lives in a script's namespace, or is one.
// A volume does when it is claimed from one.
func InScripts(res string, u *unstructured.Unstructured) bool {
	switch res {
	case "namespaces":
		return strings.HasPrefix(u.GetName(), scriptPrefix)
	case "persistentvolumes":
		ns, _, _ := unstructured.NestedString(u.Object, "spec", "claimRef", "namespace")
		return strings.HasPrefix(ns, scriptPrefix)
	}
	return strings.HasPrefix(u.GetNamespace(), scriptPrefix)
}

// WaitQuiet waits until polls consecutive polls (p.Poll apart) saw no new
// event, within p.StepTimeout.
func WaitQuiet(ctx context.Context, r *Recorder, p Params, polls int) error {
	return waitFor(ctx, p.defaults(), "no new event", r.Quiet(polls))
}

// Quiet returns a condition that holds once n consecutive polls saw no new
// event: the cluster's controllers have settled.
func (r *Recorder) Quiet(n int) func(ctx context.Context) (bool, error) {
	last, same := -1, 0
	return func(context.Context) (bool, error) {
		r.mu.Lock()
		cur := len(r.events)
		r.mu.Unlock()
		if cur == last {
			same++
		} else {
			last, same = cur, 0
		}
		return same >= n, nil
	}
}
