package writes

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// optimisticLockErrorMsg is the registry's message for an update whose
// resourceVersion is not the stored one
// (k8s.io/apiserver pkg/registry/generic/registry/store.go).
const optimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// groupKind is k's group and kind, as Invalid errors name the object
// (rest.BeforeCreate / BeforeUpdate: kind.GroupKind()).
func groupKind(k Kind) schema.GroupKind {
	return schema.GroupKind{Group: k.Resource.Group, Kind: k.Resource.Kind}
}

// kindResource is the GroupResource rest.BeforeDelete names a failed
// precondition with: the group and the kind in the resource's place
// (k8s.io/apiserver pkg/registry/rest/delete.go:86).
func kindResource(k Kind) schema.GroupResource {
	return schema.GroupResource{Group: k.Resource.Group, Resource: k.Resource.Kind}
}

// deepCopy copies u (nil stays nil), so nothing the engine answers or
// stores aliases the State's objects.
func deepCopy(u *unstructured.Unstructured) *unstructured.Unstructured {
	if u == nil {
		return nil
	}
	return u.DeepCopy()
}

// expectedNamespace is the namespace an object of k takes from a request
// to namespace ns: ns, or "" for a cluster-scoped resource
// (rest.ExpectedNamespaceForScope).
func expectedNamespace(k Kind, ns string) string {
	if !k.Resource.Namespaced {
		return ""
	}
	return ns
}

// ensureNamespace gives obj the request's namespace, or refuses a body
// namespace that differs (rest.EnsureObjectNamespaceMatchesRequestNamespace,
// k8s.io/apiserver pkg/registry/rest/meta.go:66).
func ensureNamespace(k Kind, ns string, obj *unstructured.Unstructured) error {
	want := expectedNamespace(k, ns)
	switch got := obj.GetNamespace(); {
	case got == want:
	case got == "" || want == "":
		obj.SetNamespace(want)
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// checkName refuses an update body whose name or namespace is not the
// URL's (k8s.io/apiserver pkg/endpoints/handlers/rest.go:279-287).
func checkName(req Request, obj *unstructured.Unstructured) error {
	if obj.GetName() != req.Name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", obj.GetName(), req.Name))
	}
	if ns := obj.GetNamespace(); req.Namespace != "" && ns != "" && ns != req.Namespace {
		return apierrors.NewBadRequest(fmt.Sprintf("the namespace of the object (%s) does not match the namespace on the request (%s)", ns, req.Namespace))
	}
	return nil
}

// storageKey is the etcd key of namespace/name, as a storage error names
// it. A built-in kind's is /registry/<resource>/..., the common default
// resource prefix; a few kinds, such as services, differ. A custom
// resource's is /registry/<group>/<resource>/... (apiextensions'
// ResourcePrefix group + "/" + plural).
func storageKey(k Kind, namespace, name string) string {
	prefix := "/registry/" + k.Resource.Resource
	if !k.Builtin {
		prefix = "/registry/" + k.Resource.Group + "/" + k.Resource.Resource
	}
	if namespace != "" {
		prefix += "/" + namespace
	}
	return prefix + "/" + name
}

// rvSet says rv is a resourceVersion etcd3 refuses on a create: one that
// parses as a non-zero revision (storage/etcd3/store.go Create).
func rvSet(rv string) bool {
	n, err := strconv.ParseUint(rv, 10, 64)
	return err == nil && n != 0
}

// rvSetOnCreate is the answer to a create whose body has a
// resourceVersion. storage.ErrResourceVersionSetOnCreate is a plain error.
// So responsewriters.ErrorToAPIStatus makes it a 500 with no reason and
// the error's text (k8s.io/apiserver pkg/storage/errors.go:29,
// pkg/endpoints/handlers/responsewriters/status.go).
func rvSetOnCreate() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 500,
		Reason: metav1.StatusReasonUnknown, Message: "resourceVersion should not be set on objects to be created"}}
}

// wipeSystemFields clears what a client may not set on a create
// (rest.WipeObjectMetaSystemFields, called by handlers/create.go:171 and
// by the create-on-update path of store.go Update).
func wipeSystemFields(obj *unstructured.Unstructured) {
	obj.SetCreationTimestamp(metav1.Time{})
	obj.SetUID("")
	obj.SetDeletionTimestamp(nil)
	obj.SetDeletionGracePeriodSeconds(nil)
	obj.SetSelfLink("")
}

// generationKinds are the built-in resources whose strategy sets
// generation 1 on create (k8s.io/kubernetes v1.37 pkg/registry/*/strategy.go
// PrepareForCreate: "Generation = 1"); other built-ins (configmaps,
// secrets, leases, ...) carry none.
var generationKinds = sets.New(
	"/pods", "/podtemplates", "/replicationcontrollers",
	"apps/deployments", "apps/replicasets", "apps/statefulsets", "apps/daemonsets",
	"batch/jobs", "batch/cronjobs", "autoscaling/horizontalpodautoscalers",
	"policy/poddisruptionbudgets", "discovery.k8s.io/endpointslices",
	"networking.k8s.io/ingresses", "networking.k8s.io/ingressclasses", "networking.k8s.io/networkpolicies",
	"scheduling.k8s.io/priorityclasses",
	"flowcontrol.apiserver.k8s.io/flowschemas", "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations",
	"resource.k8s.io/resourceslices", "resource.k8s.io/deviceclasses", "resource.k8s.io/devicetaintrules",
	"admissionregistration.k8s.io/validatingwebhookconfigurations", "admissionregistration.k8s.io/mutatingwebhookconfigurations",
	"admissionregistration.k8s.io/validatingadmissionpolicies", "admissionregistration.k8s.io/validatingadmissionpolicybindings",
	"admissionregistration.k8s.io/mutatingadmissionpolicies", "admissionregistration.k8s.io/mutatingadmissionpolicybindings",
)

// tracksGeneration says objects of k carry metadata.generation: every
// custom resource (customresource strategy.go:155) and the built-ins of
// generationKinds.
func tracksGeneration(k Kind) bool {
	return !k.Builtin || generationKinds.Has(k.Resource.Group+"/"+k.Resource.Resource)
}

// nextGeneration is the generation of obj, the update of old (whose
// generation a request cannot change: rest.BeforeUpdate). It bumps on
// any change outside metadata, as the custom resource strategy does
// (customresource strategy.go:178-186). By then the status is the stored
// one when the kind has the subresource. The built-in strategies are
// modelled alike. Theirs bump on a spec change (the content outside
// metadata and status). A deployment's bumps on an annotation change too
// (apps/deployment strategy.go:116-123).
func nextGeneration(k Kind, old, obj *unstructured.Unstructured) int64 {
	gen := old.GetGeneration()
	if !tracksGeneration(k) {
		return gen
	}
	changed := !equality.Semantic.DeepEqual(withoutMetadata(old), withoutMetadata(obj))
	if k.Resource.Group == "apps" && k.Resource.Resource == "deployments" &&
		!equality.Semantic.DeepEqual(old.GetAnnotations(), obj.GetAnnotations()) {
		changed = true
	}
	if changed {
		gen++
	}
	return gen
}

// withoutMetadata is obj's content but its metadata (shallow).
func withoutMetadata(obj *unstructured.Unstructured) map[string]any {
	m := make(map[string]any, len(obj.Object))
	for k, v := range obj.Object {
		if k != "metadata" {
			m[k] = v
		}
	}
	return m
}

// keepStatus gives obj old's status (none when old has none). A write of
// the main resource of a kind with a status subresource cannot set it
// (customresource strategy.go:166-176; deployment strategy PrepareForUpdate).
func keepStatus(obj, old *unstructured.Unstructured) {
	if st, ok := old.Object["status"]; ok {
		obj.Object["status"] = runtime.DeepCopyJSONValue(st)
		return
	}
	delete(obj.Object, "status")
}

// statusOnly is the object a status write stores: old with obj's status.
// A custom resource's keeps obj's managedFields too (customresource
// status_strategy.go PrepareForUpdate). A built-in's keeps obj's metadata
// and everything else old's. So do the status strategies of
// k8s.io/kubernetes v1.37.2 pkg/registry: they set Spec from old (pods,
// statefulsets, deployments, replicasets, jobs, persistentvolumeclaims,
// ...). Their own rules apply too. A deployment's labels are old's. A
// pod's ownerReferences are too (podStatusStrategy.PrepareForUpdate: "old
// kubelets corrupt them"). A pod's qosClass and observedGenerations left
// unset keep old's (preserveOldObservedGeneration).
func statusOnly(k Kind, old, obj *unstructured.Unstructured) *unstructured.Unstructured {
	out := old.DeepCopy()
	if k.Builtin {
		out.Object["metadata"] = runtime.DeepCopyJSONValue(obj.Object["metadata"])
	} else {
		out.SetManagedFields(obj.GetManagedFields())
	}
	if st, ok := obj.Object["status"]; ok {
		out.Object["status"] = runtime.DeepCopyJSONValue(st)
	} else {
		delete(out.Object, "status")
	}
	switch {
	case !k.Builtin:
	case k.Resource.Group == "apps" && k.Resource.Resource == "deployments":
		out.SetLabels(old.GetLabels())
	case GracefulKind(k): // the core pods resource
		out.SetOwnerReferences(old.GetOwnerReferences())
		podStatusKept(out, old)
	}
	return out
}

// podStatusKept gives pod's status the qosClass and observedGenerations
// of old's where a status write left them unset
// (podStatusStrategy.PrepareForUpdate, preserveOldObservedGeneration).
// Conditions are matched by type, in order.
func podStatusKept(pod, old *unstructured.Unstructured) {
	if q, _, _ := unstructured.NestedString(pod.Object, "status", "qosClass"); q == "" {
		if oq, ok, _ := unstructured.NestedString(old.Object, "status", "qosClass"); ok && oq != "" {
			_ = unstructured.SetNestedField(pod.Object, oq, "status", "qosClass")
		}
	}
	if g, _, _ := unstructured.NestedInt64(pod.Object, "status", "observedGeneration"); g == 0 {
		if og, ok, _ := unstructured.NestedInt64(old.Object, "status", "observedGeneration"); ok && og != 0 {
			_ = unstructured.SetNestedField(pod.Object, og, "status", "observedGeneration")
		}
	}
	oldGens := map[any][]int64{}
	oldConds, _, _ := unstructured.NestedSlice(old.Object, "status", "conditions")
	for _, c := range oldConds {
		if m, ok := c.(map[string]any); ok {
			g, _, _ := unstructured.NestedInt64(m, "observedGeneration")
			oldGens[m["type"]] = append(oldGens[m["type"]], g)
		}
	}
	conds, ok, _ := unstructured.NestedSlice(pod.Object, "status", "conditions")
	if !ok {
		return
	}
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		var og int64
		if gs := oldGens[m["type"]]; len(gs) > 0 {
			og, oldGens[m["type"]] = gs[0], gs[1:]
		}
		if g, _, _ := unstructured.NestedInt64(m, "observedGeneration"); g == 0 && og != 0 {
			m["observedGeneration"] = og
		}
	}
	_ = unstructured.SetNestedSlice(pod.Object, conds, "status", "conditions")
}

// validateCreate checks obj's metadata as a create's strategy does
// (validation.ValidateObjectMetaAccessor with DNS subdomain names, as
// custom resources and most built-ins use).
func validateCreate(k Kind, obj *unstructured.Unstructured) error {
	errs := validation.ValidateObjectMetaAccessor(obj, k.Resource.Namespaced, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if len(errs) > 0 {
		return apierrors.NewInvalid(groupKind(k), obj.GetName(), errs)
	}
	return nil
}

// validateUpdate checks obj's metadata against old's as an update's
// strategy does (validation.ValidateObjectMetaAccessorUpdate: immutable
// fields, no new finalizers on an object being deleted, ...).
func validateUpdate(k Kind, old, obj *unstructured.Unstructured) error {
	errs := validation.ValidateObjectMetaAccessorUpdate(obj, old, field.NewPath("metadata"))
	if len(errs) > 0 {
		return apierrors.NewInvalid(groupKind(k), obj.GetName(), errs)
	}
	return nil
}

// sameStored says a and b encode alike but for the resourceVersion
// (which the versioner clears before etcd3's GuaranteedUpdate compares
// the bytes: storage/etcd3/store.go:562).
func sameStored(a, b *unstructured.Unstructured) bool {
	return equality.Semantic.DeepEqual(withoutRV(a.Object), withoutRV(b.Object))
}

// withoutRV is obj without metadata.resourceVersion: a copy of its top
// level and its metadata, its other values shared.
func withoutRV(obj map[string]any) map[string]any {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	if _, has := md["resourceVersion"]; !has {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	m := make(map[string]any, len(md))
	for k, v := range md {
		if k != "resourceVersion" {
			m[k] = v
		}
	}
	out["metadata"] = m
	return out
}

// stamped is obj stored at rv (a copy).
func stamped(obj *unstructured.Unstructured, rv string) *unstructured.Unstructured {
	out := obj.DeepCopy()
	out.SetResourceVersion(rv)
	return out
}
