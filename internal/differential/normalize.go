package differential

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Key names one object the same way on both sides: its resource, its
// namespace and its normalized name. A namespace's namespace is its own
// name; a volume's is its claim's namespace.
type Key struct {
	Resource, Namespace, Name string
}

// String returns resource/namespace/name.
func (k Key) String() string { return k.Resource + "/" + k.Namespace + "/" + k.Name }

// Lifecycle is an object's normalized life: "created: <state>", then each
// new state, then "deleted". A name made anew, as a StatefulSet's pod is,
// gets "created: ..." again. Repeated states are collapsed.
type Lifecycle []string

// Final is the lifecycle's last entry: the object's final state, or
// "deleted".
func (l Lifecycle) Final() string {
	if len(l) == 0 {
		return ""
	}
	return strings.TrimPrefix(l[len(l)-1], createdPrefix)
}

// createdPrefix starts a lifecycle's creation entry.
const createdPrefix = "created: "

// deletedEntry is a lifecycle's deletion entry.
const deletedEntry = "deleted"

// Lifecycles normalizes events into each object's lifecycle. Names with
// random or hashed parts are replaced (normalName): UIDs, resourceVersions,
// timestamps, managedFields and addresses never enter a state (state).
func Lifecycles(events []Event) map[Key]Lifecycle {
	names := normalNames(events)
	out := map[Key]Lifecycle{}
	for _, e := range events {
		u := e.Object
		k := Key{Resource: e.Resource, Namespace: keyNamespace(e.Resource, u), Name: names[u.GetUID()]}
		l := out[k]
		var entry string
		switch {
		case e.Type == Deleted:
			entry = deletedEntry
		case len(l) == 0 || l[len(l)-1] == deletedEntry:
			entry = createdPrefix + state(e.Resource, u, names)
		default:
			entry = state(e.Resource, u, names)
		}
		if len(l) > 0 && strings.TrimPrefix(l[len(l)-1], createdPrefix) == entry {
			continue
		}
		out[k] = append(l, entry)
	}
	return out
}

// keyNamespace is the namespace of an object's Key.
func keyNamespace(res string, u *unstructured.Unstructured) string {
	switch res {
	case "namespaces":
		return u.GetName()
	case "persistentvolumes":
		ns, _, _ := unstructured.NestedString(u.Object, "spec", "claimRef", "namespace")
		return ns
	}
	return u.GetNamespace()
}

// normalNames maps every object's UID to its normalized name:
//   - a volume: "pv-for-<claim name>";
//   - a ControllerRevision: "<owner>-revision-<revision>";
//   - a ReplicaSet a Deployment controls: "<deployment>-rs#<n>", n its
//     order of appearance among that Deployment's;
//   - a StatefulSet's pod: its name (web-0), though it has a generateName;
//   - another object made with generateName: "<controller's normalized
//     name>#<n>" (or "<generateName>#<n>" with no controller), n its order
//     of appearance among the same resource's of that controller;
//   - any other object: its name.
func normalNames(events []Event) map[types.UID]string {
	names := map[types.UID]string{}
	count := map[string]int{}
	for _, e := range events {
		u := e.Object
		if _, ok := names[u.GetUID()]; ok {
			continue
		}
		names[u.GetUID()] = normalName(e.Resource, u, names, count)
	}
	return names
}

// normalName is one object's normalized name. It is given those of the
// objects seen before it (an owner appears before what it makes), and the
// count of names handed out per prefix.
func normalName(res string, u *unstructured.Unstructured, names map[types.UID]string, count map[string]int) string {
	owner, ownerKind := "", ""
	for _, ref := range u.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			owner, ownerKind = names[ref.UID], ref.Kind
			if owner == "" {
				owner = ref.Name
			}
		}
	}
	next := func(prefix string) string {
		p := res + "/" + u.GetNamespace() + "/" + prefix
		n := count[p]
		count[p]++
		return prefix + strconv.Itoa(n)
	}
	switch {
	case res == "persistentvolumes":
		claim, _, _ := unstructured.NestedString(u.Object, "spec", "claimRef", "name")
		return "pv-for-" + claim
	case res == "controllerrevisions" && owner != "":
		rev, _, _ := unstructured.NestedInt64(u.Object, "revision")
		return owner + "-revision-" + strconv.FormatInt(rev, 10)
	case res == "replicasets" && owner != "":
		return next(owner + "-rs#")
	case ownerKind == "StatefulSet":
		return u.GetName() // web-0: its generateName is set, its name is not random
	case u.GetGenerateName() != "" && owner != "":
		return next(owner + "#")
	case u.GetGenerateName() != "":
		return next(u.GetGenerateName() + "#")
	}
	return u.GetName()
}

// state is an object's normalized state: what its controllers and the
// scripts decide. That is spec figures, status figures and conditions,
// owners, finalizers, deletion. It holds none of what differs by
// nature between two clusters.
func state(res string, u *unstructured.Unstructured, names map[types.UID]string) string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	i := func(path ...string) int64 { v, _, _ := unstructured.NestedInt64(u.Object, path...); return v }
	s := func(path ...string) string { v, _, _ := unstructured.NestedString(u.Object, path...); return v }
	switch res {
	case "pods":
		add("phase=%s ready=%s bound=%t image=%s", s("status", "phase"), condition(u, "Ready"), s("spec", "nodeName") != "", podImage(u))
		if code, ok := exitCode(u); ok {
			add("exit=%d", code)
		}
	case "statefulsets":
		add("spec=%d replicas=%d ready=%d current=%d updated=%d available=%d rolled=%t",
			i("spec", "replicas"), i("status", "replicas"), i("status", "readyReplicas"), i("status", "currentReplicas"),
			i("status", "updatedReplicas"), i("status", "availableReplicas"), s("status", "currentRevision") == s("status", "updateRevision"))
	case "deployments":
		add("spec=%d replicas=%d updated=%d ready=%d available=%d unavailable=%d conditions=%s",
			i("spec", "replicas"), i("status", "replicas"), i("status", "updatedReplicas"), i("status", "readyReplicas"),
			i("status", "availableReplicas"), i("status", "unavailableReplicas"), conditions(u))
	case "replicasets":
		add("spec=%d replicas=%d ready=%d available=%d revision=%s", i("spec", "replicas"), i("status", "replicas"),
			i("status", "readyReplicas"), i("status", "availableReplicas"), u.GetAnnotations()["deployment.kubernetes.io/revision"])
	case "jobs":
		add("active=%d ready=%d succeeded=%d failed=%d conditions=%s", i("status", "active"), i("status", "ready"),
			i("status", "succeeded"), i("status", "failed"), conditions(u))
	case "persistentvolumeclaims":
		add("phase=%s bound=%t", s("status", "phase"), s("spec", "volumeName") != "")
	case "persistentvolumes":
		add("phase=%s", s("status", "phase"))
	case "namespaces":
		add("phase=%s", s("status", "phase"))
	case "endpointslices":
		add("endpoints=%s", endpoints(u))
	case "controllerrevisions":
		add("revision=%d", i("revision"))
	}
	if u.GetDeletionTimestamp() != nil {
		add("deleting")
	}
	if f := slices.Sorted(slices.Values(u.GetFinalizers())); len(f) > 0 {
		add("finalizers=%s", strings.Join(f, ","))
	}
	var owners []string
	for _, ref := range u.GetOwnerReferences() {
		name := names[ref.UID]
		if name == "" {
			name = ref.Name
		}
		owners = append(owners, ref.Kind+"/"+name)
	}
	if len(owners) > 0 {
		slices.Sort(owners)
		add("owners=%s", strings.Join(owners, ","))
	}
	return strings.Join(parts, " ")
}
