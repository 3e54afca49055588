package writes

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/lwreplay/lwreplay/history"
)

// The pods/binding subresource: a scheduler's POST of a v1 Binding to
// /api/v1/namespaces/NS/pods/NAME/binding, as kube-apiserver's
// BindingREST answers it (k8s.io/kubernetes v1.37.2
// pkg/registry/core/pod/storage/storage.go: Create, assignPod,
// setPodNodeAndMetadata). The write bypasses the pod strategy: it goes
// straight to storage (GuaranteedUpdate), so the generation and
// managedFields stay as they were.

// bindingKind is the kind of a binding's body.
var bindingKind = Kind{Builtin: true, Resource: history.Resource{Version: "v1", Resource: "bindings", Kind: "Binding", Namespaced: true}}

// podsBinding is the GroupResource a refused binding names
// (assignPod: api.Resource("pods/binding")).
var podsBinding = schema.GroupResource{Resource: "pods/binding"}

// bindsPods says k is the core pods resource: the one with a binding
// subresource.
func bindsPods(k Kind) bool {
	return k.Builtin && k.Resource.Group == "" && k.Resource.Resource == "pods"
}

// bind answers a POST of a Binding to a pod's binding subresource. The
// pod is assigned to the binding's target node. The answer is a Status
// Success, 201 (handlers/create.go sets the code of a Status the storage
// returns).
func bind(st State, env Env, req Request) (Result, error) {
	if !bindsPods(req.Kind) {
		return Result{}, noCreate(req)
	}
	obj, err := decodeObject(bindingKind, req.ContentType, req.Body)
	if err != nil {
		return Result{}, err
	}
	if err := ensureNamespace(bindingKind, req.Namespace, obj); err != nil {
		return Result{}, err
	}
	var b corev1.Binding
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &b); err != nil {
		return Result{}, apierrors.NewBadRequest(err.Error())
	}
	if b.Name != req.Name {
		return Result{}, apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	if errs := validateBinding(&b); len(errs) > 0 {
		// a plain error: kube-apiserver answers it 500, reason Unknown
		// (responsewriters.ErrorToAPIStatus)
		return Result{}, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
			Reason: metav1.StatusReasonUnknown, Message: errs.ToAggregate().Error()}}
	}
	old, ok := st.Get(Key(req.Namespace, req.Name))
	if !ok {
		return Result{}, apierrors.NewNotFound(groupResource(req.Kind), req.Name)
	}
	if err := bindPreconditions(req, b, old); err != nil {
		return Result{}, err
	}
	var pod corev1.Pod
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(old.Object, &pod); err != nil {
		return Result{}, apierrors.NewInternalError(err)
	}
	if err := assignPod(&pod, b, env.Now); err != nil {
		return Result{}, apierrors.NewConflict(podsBinding, req.Name, err)
	}
	out, err := toUnstructured(req.Kind, &pod)
	if err != nil {
		return Result{}, apierrors.NewInternalError(err)
	}
	answer, err := successStatus(http.StatusCreated)
	if err != nil || req.DryRun {
		return Result{Code: http.StatusCreated, Event: None, Answer: answer}, err
	}
	return Result{Code: http.StatusCreated, Event: Modified, Stored: stamped(out, env.NextRV()), Answer: answer}, nil
}

// validateBinding is validation.ValidatePodBinding
// (pkg/apis/core/validation/validation.go): the target a Node (or no
// kind), its name a DNS subdomain.
func validateBinding(b *corev1.Binding) field.ErrorList {
	var errs field.ErrorList
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), b.Target.Kind, []string{"Node", "<empty>"}))
	}
	if b.Target.Name == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	} else if b.Target.Kind == "" || b.Target.Kind == "Node" {
		for _, msg := range validation.NameIsDNSSubdomain(b.Target.Name, false) {
			errs = append(errs, field.Invalid(field.NewPath("target", "name"), b.Target.Name, msg))
		}
	}
	return errs
}

// bindPreconditions checks the storage preconditions a binding's uid and
// resourceVersion make (the handler keeps them:
// PreserveRequestObjectMetaSystemFieldsOnSubresourceCreate): a mismatch
// is a Conflict around etcd3's StorageError (storage/interfaces.go
// Preconditions.Check, storeerr.InterpretUpdateError).
func bindPreconditions(req Request, b corev1.Binding, old *unstructured.Unstructured) error {
	var msg string
	switch {
	case b.UID != "" && b.UID != old.GetUID():
		msg = fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", b.UID, old.GetUID())
	case b.ResourceVersion != "" && b.ResourceVersion != old.GetResourceVersion():
		msg = fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", b.ResourceVersion, old.GetResourceVersion())
	default:
		return nil
	}
	storageErr := fmt.Sprintf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: %s",
		storageKey(req.Kind, req.Namespace, req.Name), msg)
	return apierrors.NewConflict(groupResource(req.Kind), req.Name, errors.New(storageErr))
}

// assignPod is setPodNodeAndMetadata's update of pod, at now. It refuses a
// pod being deleted, already assigned, or with scheduling gates. (The
// refusal is a plain error, which assignPod makes a Conflict on
// pods/binding.) Else it sets the pod's nodeName and clears its
// nominatedNodeName (ClearingNominatedNodeNameAfterBinding, on since
// 1.35). It merges in the binding's annotations and labels
// (PodTopologyLabelsAdmission, on since 1.35). The admission plugin's node
// topology labels are not modelled. Last, it sets the PodScheduled
// condition True (podutil.UpdatePodCondition).
func assignPod(pod *corev1.Pod, b corev1.Binding, now time.Time) error {
	switch {
	case pod.DeletionTimestamp != nil:
		return fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name)
	case pod.Spec.NodeName != "":
		return fmt.Errorf("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName)
	case len(pod.Spec.SchedulingGates) != 0:
		return fmt.Errorf("pod %v has non-empty .spec.schedulingGates", pod.Name)
	}
	pod.Spec.NodeName = b.Target.Name
	pod.Status.NominatedNodeName = ""
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	for k, v := range b.Annotations {
		pod.Annotations[k] = v
	}
	for _, k := range initContainerAnnotations {
		delete(pod.Annotations, k)
	}
	if len(b.Labels) > 0 && pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	for k, v := range b.Labels {
		pod.Labels[k] = v
	}
	updatePodCondition(&pod.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, now)
	return nil
}

// initContainerAnnotations are the beta annotations
// podutil.DropInitContainerAnnotations removes (pkg/api/pod/util.go).
var initContainerAnnotations = []string{
	"pod.beta.kubernetes.io/init-containers", "pod.alpha.kubernetes.io/init-containers",
	"pod.beta.kubernetes.io/init-container-statuses", "pod.alpha.kubernetes.io/init-container-statuses",
}

// updatePodCondition is podutil.UpdatePodCondition (pkg/api/pod/util.go):
// c replaces the condition of its type, its lastTransitionTime now unless
// the status is unchanged; a new type is appended.
func updatePodCondition(st *corev1.PodStatus, c corev1.PodCondition, now time.Time) {
	c.LastTransitionTime = metav1.NewTime(now)
	for i, old := range st.Conditions {
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		st.Conditions[i] = c
		return
	}
	st.Conditions = append(st.Conditions, c)
}

// successStatus is a Status Success of code, as a storage's Status the
// handler answers.
func successStatus(code int32) (*unstructured.Unstructured, error) {
	s := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess, Code: code}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}
