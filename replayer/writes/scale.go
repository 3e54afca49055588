package writes

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/builtin"
)

// The scale subresource, as k8s.io/kubernetes v1.37 serves it
// (pkg/registry/apps/deployment/storage/storage.go ScaleREST, and the
// ScaleREST of apps/replicaset, apps/statefulset and
// core/replicationcontroller, alike). A GET answers the object's
// autoscaling/v1 Scale. A PUT or PATCH computes a new Scale from the old
// one. It stores the object with the Scale's spec.replicas and
// resourceVersion through the kind's own store. The kind's update rules
// apply: status kept, generation bumped, 409 on a stale resourceVersion.
// The scale subresource of a custom resource (a CRD's subresources.scale)
// is not modelled: its CRD's paths are not in the Kind.

// replicasPath is the path of spec.replicas, in the object and in its
// Scale.
var replicasPath = fieldpath.MakePathOrDie("spec", "replicas")

// scaleMappings are, by resource, the group versions whose managedFields
// the scale subresource maps, with their replicas path (the registries'
// replicasPathIn<Kind>: storage.go:67-71 for deployments).
var scaleMappings = map[schema.GroupResource]managedfields.ResourcePathMappings{
	{Group: "apps", Resource: "deployments"}:  {"apps/v1beta1": replicasPath, "apps/v1beta2": replicasPath, "apps/v1": replicasPath},
	{Group: "apps", Resource: "replicasets"}:  {"apps/v1beta2": replicasPath, "apps/v1": replicasPath},
	{Group: "apps", Resource: "statefulsets"}: {"apps/v1beta1": replicasPath, "apps/v1beta2": replicasPath, "apps/v1": replicasPath},
	{Resource: "replicationcontrollers"}:      {"v1": replicasPath},
}

// HasScale says k has the scale subresource the engine models. Those are
// apps/v1 deployments, replicasets and statefulsets, and v1
// replicationcontrollers: the built-ins of client-go's scheme whose
// registries serve one. Custom resources are not among them.
func HasScale(k Kind) bool {
	_, ok := scaleMappings[groupResource(k)]
	return ok && k.Builtin && k.Resource.Version == "v1"
}

// scaleKind is the kind a scale request's body and answer have:
// autoscaling/v1 Scale, scoped as its parent.
func scaleKind(parent Kind) Kind {
	return Kind{Resource: history.Resource{Group: autoscalingv1.GroupName, Version: "v1", Resource: parent.Resource.Resource,
		Kind: "Scale", Namespaced: parent.Resource.Namespaced}, Builtin: true}
}

// ScaleOf is the Scale of obj, an object of k (HasScale), as the
// registries' scaleFrom<Kind> compute it (storage.go:371-399). It holds
// the object's name, namespace, uid, resourceVersion and
// creationTimestamp. It holds spec.replicas; none reads 0, since the
// replay does not default it to 1. It holds status.replicas, and
// status.selector: the object's label selector as a string (a
// replicationcontroller's map of labels: SelectorFromSet). A selector that
// does not parse is a 400 (ScaleREST.Get).
func ScaleOf(k Kind, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if !HasScale(k) {
		return nil, noRoute(http.StatusNotFound)
	}
	typed, err := builtin.Scheme.New(gvk(k))
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, typed); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	var (
		replicas *int32
		status   int32
		selector labels.Selector
	)
	switch o := typed.(type) {
	case *appsv1.Deployment:
		replicas, status = o.Spec.Replicas, o.Status.Replicas
		selector, err = metav1.LabelSelectorAsSelector(o.Spec.Selector)
	case *appsv1.ReplicaSet:
		replicas, status = o.Spec.Replicas, o.Status.Replicas
		selector, err = metav1.LabelSelectorAsSelector(o.Spec.Selector)
	case *appsv1.StatefulSet:
		replicas, status = o.Spec.Replicas, o.Status.Replicas
		selector, err = metav1.LabelSelectorAsSelector(o.Spec.Selector)
	case *corev1.ReplicationController:
		replicas, status = o.Spec.Replicas, o.Status.Replicas
		selector = labels.SelectorFromSet(o.Spec.Selector)
	default:
		return nil, noRoute(http.StatusNotFound)
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	s := &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: obj.GetName(), Namespace: obj.GetNamespace(), UID: obj.GetUID(),
			ResourceVersion: obj.GetResourceVersion(), CreationTimestamp: obj.GetCreationTimestamp()},
		Status: autoscalingv1.ScaleStatus{Replicas: status, Selector: selector.String()},
	}
	if replicas != nil {
		s.Spec.Replicas = *replicas
	}
	out, err := toUnstructured(scaleKind(k), s)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return out, nil
}

// scale answers a write to the scale subresource, as ScaleREST.Update and
// scaleUpdatedObjectInfo.UpdatedObject do (storage.go:321-340, 407-484).
// The write is a PUT (its body a Scale, its name the URL's). Or it is a
// PATCH: any patch type the kind takes, applied to the old Scale.
//   - The object must exist (404 of the kind's resource).
//   - A PUT's uid is a storage precondition (409).
//   - The old Scale carries the object's managedFields mapped to it
//     (managedfields.ScaleHandler). The scale subresource's field manager
//     records the write in them, and they are mapped back.
//   - The new Scale is validated (422 Scale.autoscaling). Its uid must be
//     the object's (409 on <resource>/scale).
//   - The object takes its spec.replicas and resourceVersion. It is stored
//     with the kind's update rules (store).
//
// The answer is the stored object's Scale. Any other method has no route
// there (405), nor has a kind without the subresource (404).
func scale(st State, env Env, req Request) (Result, error) {
	if !HasScale(req.Kind) {
		return Result{}, noRoute(http.StatusNotFound)
	}
	sk := scaleKind(req.Kind)
	var sent *unstructured.Unstructured
	switch req.Verb {
	case Update:
		var err error
		if sent, err = decodeObject(sk, req.ContentType, req.Body); err != nil {
			return Result{}, err
		}
		if err := checkName(req, sent); err != nil {
			return Result{}, err
		}
	case Patch:
		if err := checkPatchRequest(req.Kind, patchTypeOf(req), req); err != nil {
			return Result{}, err
		}
	default:
		return Result{}, noRoute(http.StatusMethodNotAllowed)
	}
	old, ok := st.Get(Key(expectedNamespace(req.Kind, req.Namespace), req.Name))
	if !ok {
		return Result{}, apierrors.NewNotFound(groupResource(req.Kind), req.Name)
	}
	if sent != nil {
		if err := uidPrecondition(req, sent, old); err != nil {
			return Result{}, err
		}
	}
	h := managedfields.NewScaleHandler(old.GetManagedFields(), schema.GroupVersion{Group: req.Kind.Resource.Group, Version: req.Kind.Resource.Version},
		scaleMappings[groupResource(req.Kind)])
	oldScale, err := ScaleOf(req.Kind, old)
	if err != nil {
		return Result{}, err
	}
	entries, err := h.ToSubresource()
	if err != nil {
		return Result{}, unknownError(err)
	}
	oldScale.SetManagedFields(entries)
	newScale, err := scaled(sk, req, env.Now, oldScale, sent)
	if err != nil {
		return Result{}, err
	}
	obj, err := scaledObject(req, old, newScale, h)
	if err != nil {
		return Result{}, err
	}
	res, err := store(st, env, req, old, obj)
	if err != nil {
		return Result{}, err
	}
	if res.Answer, err = ScaleOf(req.Kind, res.Answer); err != nil {
		return Result{}, err
	}
	res.AnswerIsStored = false // the answer is the object's Scale
	return res, nil
}

// scaled is the new Scale of a scale write: sent (a PUT's body) or old
// patched by req. It is as the handlers hold it: through autoscaling/v1's
// Go type, the name and namespace the URL's. The scale subresource's
// field manager records the write in its managedFields.
func scaled(sk Kind, req Request, now time.Time, old, sent *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	fm, err := scaleFieldManager()
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	manager := managerOrUserAgent(req.FieldManager, req.UserAgent)
	pt := patchTypeOf(req)
	var obj *unstructured.Unstructured
	switch {
	case sent != nil:
		obj = sent
	case pt == types.ApplyYAMLPatchType:
		return scaleApplied(fm, sk, req, now, old)
	case pt == types.StrategicMergePatchType:
		obj, _, err = strategicPatched(sk, old, req.Body) // fieldValidation of a Scale is not modelled
	default:
		obj, _, err = jsonPatched(sk, old, pt, req.Body)
	}
	if err != nil {
		return nil, err
	}
	if obj, err = throughType(sk, obj); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if err := keepIdentity(sk, req, obj); err != nil {
		return nil, err
	}
	out, err := fm.Update(old.DeepCopy(), obj.DeepCopy(), manager)
	if err != nil {
		// as trackUpdate: untrackable fields drop the managedFields, the write goes on
		obj.SetManagedFields(nil)
		return obj, nil
	}
	u, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("the field manager made a %T, not an unstructured object", out))
	}
	stampTimes(old, u, now)
	return u, nil
}

// scaleApplied is old with req's server-side apply merged by the scale
// subresource's field manager (as applied does for an object).
func scaleApplied(fm *managedfields.FieldManager, sk Kind, req Request, now time.Time, old *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	patchObj := &unstructured.Unstructured{Object: map[string]any{}}
	if err := yaml.Unmarshal(req.Body, &patchObj.Object); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	out, err := fm.Apply(old.DeepCopy(), patchObj, req.FieldManager, req.Force)
	if err != nil {
		return nil, asStatus(err)
	}
	u, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("apply made a %T, not an unstructured object", out))
	}
	if u, err = throughType(sk, u); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if err := keepIdentity(sk, req, u); err != nil {
		return nil, err
	}
	stampTimes(old, u, now)
	return u, nil
}

// scaledObject is old as the scale write newScale leaves it, before the
// update rules (scaleUpdatedObjectInfo.UpdatedObject, storage.go:457-483).
// It validates newScale (autoscaling validation ValidateScale:
// managedFields, spec.replicas not negative), whose uid must be old's.
// Then old takes its spec.replicas, resourceVersion and managedFields
// mapped back.
func scaledObject(req Request, old, newScale *unstructured.Unstructured, h *managedfields.ScaleHandler) (*unstructured.Unstructured, error) {
	replicas, _, err := unstructured.NestedInt64(newScale.Object, "spec", "replicas")
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	errs := metavalidation.ValidateManagedFields(newScale.GetManagedFields(), field.NewPath("metadata", "managedFields"))
	errs = append(errs, apivalidation.ValidateNonnegativeField(replicas, field.NewPath("spec", "replicas"))...)
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: autoscalingv1.GroupName, Kind: "Scale"}, req.Name, errs)
	}
	if uid := newScale.GetUID(); uid != "" && uid != old.GetUID() {
		gr := groupResource(req.Kind)
		gr.Resource += "/scale"
		return nil, apierrors.NewConflict(gr, req.Name, fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, old.GetUID()))
	}
	obj := old.DeepCopy()
	if err := unstructured.SetNestedField(obj.Object, replicas, "spec", "replicas"); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	obj.SetResourceVersion(newScale.GetResourceVersion())
	entries, err := h.ToParent(newScale.GetManagedFields())
	if err != nil {
		return nil, unknownError(err)
	}
	obj.SetManagedFields(entries)
	return obj, nil
}

// scaleFieldManager is the field manager of the scale subresource, as
// kube-apiserver makes one for it (endpoints/installer.go: the Scale kind,
// subresource "scale", no reset fields). Its type converter is deduced.
// client-go's OpenAPI models have no autoscaling/v1 Scale. A Scale holds
// no list, so a deduced schema (granular maps) tracks it alike.
var scaleFieldManager = sync.OnceValues(func() (*managedfields.FieldManager, error) {
	k := autoscalingv1.SchemeGroupVersion.WithKind("Scale")
	return managedfields.NewDefaultFieldManager(managedfields.NewDeducedTypeConverter(), sameVersion{},
		unstructuredscheme.NewUnstructuredDefaulter(), unstructuredscheme.NewUnstructuredCreator(), k, k.GroupVersion(), "scale", nil)
})
