package writediff

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// resources are the GroupVersionResources steps name, by Step.Resource.
var resources = map[string]schema.GroupVersionResource{
	"configmaps":  {Version: "v1", Resource: "configmaps"},
	"deployments": {Group: "apps", Version: "v1", Resource: "deployments"},
	"widgets":     {Group: "example.com", Version: "v1", Resource: "widgets"},
}

var (
	namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	crds       = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// sentinels are the objects, by resource, whose ADDED event ends a
// sequence's watch: the harness creates one after the last step.
var sentinels = map[string]string{
	"configmaps":  `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"zz-end"}}`,
	"deployments": `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"zz-end"},"spec":{"selector":{"matchLabels":{"app":"end"}},"template":{"metadata":{"labels":{"app":"end"}},"spec":{"containers":[{"name":"a","image":"busybox:1"}]}}}}`,
	"widgets":     `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"zz-end"},"spec":{}}`,
}

// WidgetCRD is the CustomResourceDefinition Run creates before the
// sequences: widgets.example.com, namespaced, v1, with a status
// subresource and spec and status left open.
const WidgetCRD = `{
 "apiVersion": "apiextensions.k8s.io/v1",
 "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.example.com"},
 "spec": {
  "group": "example.com",
  "scope": "Namespaced",
  "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
  "versions": [{
   "name": "v1", "served": true, "storage": true,
   "subresources": {"status": {}},
   "schema": {"openAPIV3Schema": {"type": "object", "properties": {
    "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
   }}}
  }]
 }
}`

// establishTimeout bounds the wait for the CRD to be established and its
// resource served.
const establishTimeout = 30 * time.Second

// decode parses a JSON object.
func decode(s string) (*unstructured.Unstructured, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("parse object %q: %w", s, err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// setup creates the widget CRD (an existing one will do) and waits until
// it is established and widgets can be listed. It returns the server's
// answer when that is an error, and an error when the harness fails.
func setup(ctx context.Context, dc dynamic.Interface) (*Outcome, error) {
	crd, err := decode(WidgetCRD)
	if err != nil {
		return nil, err
	}
	_, err = dc.Resource(crds).Create(ctx, crd, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		o := outcomeOf(err)
		o.Step = "create CRD"
		return &o, nil
	}
	ctx, cancel := context.WithTimeout(ctx, establishTimeout)
	defer cancel()
	for {
		got, err := dc.Resource(crds).Get(ctx, "widgets.example.com", metav1.GetOptions{})
		if err == nil && established(got) {
			_, err = dc.Resource(resources["widgets"]).List(ctx, metav1.ListOptions{Limit: 1})
			if err == nil {
				return nil, nil
			}
		}
		select {
		case <-ctx.Done():
			o := outcomeOf(err)
			o.Step = "establish CRD"
			if err == nil {
				o.Message = "not established within " + establishTimeout.String()
			}
			return &o, nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// established reports whether a CRD's Established condition is True.
func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}
