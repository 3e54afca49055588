package differential

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// condition returns the status of the object's condition of type typ, or
// "-" without one.
func condition(u *unstructured.Unstructured, typ string) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			s, _ := m["status"].(string)
			return s
		}
	}
	return "-"
}

// conditions returns the object's conditions that are True, with their
// reasons, sorted: "Available:MinimumReplicasAvailable,Complete".
func conditions(u *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var out []string
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["status"] != "True" {
			continue
		}
		t, _ := m["type"].(string)
		if r, _ := m["reason"].(string); r != "" {
			t += ":" + r
		}
		out = append(out, t)
	}
	slices.Sort(out)
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ",")
}

// podImage returns the image of the pod's first container.
func podImage(u *unstructured.Unstructured) string {
	cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "containers")
	if len(cs) == 0 {
		return "-"
	}
	m, _ := cs[0].(map[string]any)
	img, _ := m["image"].(string)
	return img
}

// exitCode returns the exit code of the pod's first terminated container.
func exitCode(u *unstructured.Unstructured) (int64, bool) {
	cs, _, _ := unstructured.NestedSlice(u.Object, "status", "containerStatuses")
	for _, c := range cs {
		m, _ := c.(map[string]any)
		if code, ok, _ := unstructured.NestedInt64(m, "state", "terminated", "exitCode"); ok {
			return code, true
		}
	}
	return 0, false
}

// endpoints returns an EndpointSlice's endpoints as counts: "2/2 ready"
// (their addresses and pods' names are not compared).
func endpoints(u *unstructured.Unstructured) string {
	eps, _, _ := unstructured.NestedSlice(u.Object, "endpoints")
	ready := 0
	for _, e := range eps {
		m, _ := e.(map[string]any)
		if r, ok, _ := unstructured.NestedBool(m, "conditions", "ready"); ok && r {
			ready++
		}
	}
	return fmt.Sprintf("%d/%d-ready", ready, len(eps))
}
