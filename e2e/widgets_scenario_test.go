package e2e

import (
	"context"
	"fmt"
	"os"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"

	"github.com/lwreplay/lwreplay/history"
)

// The Widget custom resource of examples/widgets (its CRD is that
// example's testdata/crd.yaml) and the scenario TestRecordWidgets records.
var (
	widgetCRD = "../examples/widgets/testdata/crd.yaml"
	crdGVR    = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	widgetGVR = schema.GroupVersionResource{Group: "example.lwreplay.dev", Version: "v1", Resource: "widgets"}
	// widgetResource is the widgets' log in a history.
	widgetResource = history.Resource{Group: "example.lwreplay.dev", Version: "v1", Resource: "widgets"}
)

const (
	// widgetNS is the namespace of the recorded widgets.
	widgetNS = "e2e-widgets"
	// widgetPhoenix is the widget the scenario deletes (held by a
	// finalizer: it carries a deletionTimestamp first) and creates again
	// under its name.
	widgetPhoenix = "phoenix"
	// widgetHold is the finalizer the scenario puts on the phoenix and
	// takes off once it is deleting.
	widgetHold = "example.lwreplay.dev/hold"
)

// applyCRD creates the CustomResourceDefinition in path and waits until
// its resource is served.
func applyCRD(ctx context.Context, dyn dynamic.Interface, path string, gvr schema.GroupVersionResource) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	crd := &unstructured.Unstructured{}
	if err := utilyaml.NewYAMLOrJSONDecoder(f, 4096).Decode(&crd.Object); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	if _, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create the CRD of %s: %w", path, err)
	}
	ns := "default"
	if scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope"); scope == "Cluster" {
		ns = "" // a cluster-scoped resource is listed without a namespace
	}
	deadline := time.Now().Add(waitLimit)
	for {
		_, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not served %v after its CRD was created: %w", gvr, waitLimit, err)
		}
		time.Sleep(pollEvery)
	}
}

// widget returns a Widget of the scenario's namespace.
func widget(name string, data map[string]string, finalizers ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(widgetGVR.GroupVersion().String())
	u.SetKind("Widget")
	u.SetNamespace(widgetNS)
	u.SetName(name)
	u.SetFinalizers(finalizers)
	d := map[string]any{}
	for k, v := range data {
		d[k] = v
	}
	u.Object["spec"] = map[string]any{"data": d}
	return u
}

// widgetActor is the scenario's other actor: a client that creates,
// updates and deletes widgets. Each change is a second apart, so that
// each comes at a time of its own in the recording.
type widgetActor struct {
	dyn   dynamic.Interface
	pause time.Duration
}

func (a widgetActor) create(ctx context.Context, w *unstructured.Unstructured) error {
	if _, err := a.dyn.Resource(widgetGVR).Namespace(widgetNS).Create(ctx, w, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create widget %s: %w", w.GetName(), err)
	}
	time.Sleep(a.pause)
	return nil
}

func (a widgetActor) update(ctx context.Context, name string, change func(*unstructured.Unstructured) error) error {
	ws := a.dyn.Resource(widgetGVR).Namespace(widgetNS)
	w, err := ws.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get widget %s: %w", name, err)
	}
	if err := change(w); err != nil {
		return fmt.Errorf("change widget %s: %w", name, err)
	}
	if _, err := ws.Update(ctx, w, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update widget %s: %w", name, err)
	}
	time.Sleep(a.pause)
	return nil
}

func (a widgetActor) delete(ctx context.Context, name string) error {
	if err := a.dyn.Resource(widgetGVR).Namespace(widgetNS).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete widget %s: %w", name, err)
	}
	time.Sleep(a.pause)
	return nil
}

// setData returns a change that sets spec.data[k] = v.
func setData(k, v string) func(*unstructured.Unstructured) error {
	return func(w *unstructured.Unstructured) error {
		return unstructured.SetNestedField(w.Object, v, "spec", "data", k)
	}
}

// prepopulateWidgets creates the widgets that exist before the recording
// starts.
func (a widgetActor) prepopulate(ctx context.Context) error {
	for _, w := range []*unstructured.Unstructured{widget("alpha", map[string]string{"a": "1"}), widget("beta", map[string]string{"b": "1"})} {
		if err := a.create(ctx, w); err != nil {
			return err
		}
	}
	return nil
}

// mutate is the recorded scenario: a widget created, widgets updated, one
// deleted. Last comes the phoenix. It is created with a finalizer,
// updated, and deleted (a deletionTimestamp, held by the finalizer). Its
// finalizer is taken off, and it goes. It is created again under its name
// (a new UID). The phoenix's deletion comes last, so that a LIST a few
// events stale shows the old phoenix deleting, and the truth the new one.
// The planted stale-state bug of examples/widgets needs that.
func (a widgetActor) mutate(ctx context.Context) error {
	steps := []func() error{
		func() error { return a.create(ctx, widget("gamma", map[string]string{"g": "1"})) },
		func() error { return a.update(ctx, "alpha", setData("a", "2")) },
		func() error { return a.create(ctx, widget(widgetPhoenix, map[string]string{"life": "1"}, widgetHold)) },
		func() error { return a.update(ctx, "beta", setData("b", "2")) },
		func() error { return a.delete(ctx, "beta") },
		func() error { return a.update(ctx, widgetPhoenix, setData("touched", "1")) },
		func() error { return a.delete(ctx, widgetPhoenix) },
		func() error {
			return a.update(ctx, widgetPhoenix, func(w *unstructured.Unstructured) error { w.SetFinalizers(nil); return nil })
		},
		func() error { return a.create(ctx, widget(widgetPhoenix, map[string]string{"life": "2"})) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}
