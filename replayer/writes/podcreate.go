package writes

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// A pod's create status. kube-apiserver's pod strategy starts every pod
// Pending, with its QoS class. When scheduling gates hold it, the pod
// also gets a PodScheduled=False condition (k8s.io/kubernetes v1.37.2
// pkg/registry/core/pod/strategy.go PrepareForCreate,
// applySchedulingGatedCondition). A kubelet and the scheduler read them.

// isPods says k is the core group's pods.
func isPods(k Kind) bool { return k.Builtin && k.Resource.Group == "" && k.Resource.Resource == "pods" }

// podCreateStatus is the status kube-apiserver gives a new pod.
func podCreateStatus(obj *unstructured.Unstructured) (map[string]any, error) {
	var pod corev1.Pod
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &pod); err != nil {
		return nil, err
	}
	st := corev1.PodStatus{Phase: corev1.PodPending, QOSClass: podQOS(&pod.Spec)}
	if len(pod.Spec.SchedulingGates) > 0 {
		st.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonSchedulingGated, Message: "Scheduling is blocked due to non-empty scheduling gates"}}
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
}

// podQOS is the pod's QoS class (pkg/apis/core/helper/qos ComputePodQOS,
// without pod-level resources): Burstable once one container is, or when
// containers disagree; else the containers' common class.
func podQOS(spec *corev1.PodSpec) corev1.PodQOSClass {
	var class corev1.PodQOSClass
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			c := requirementsQOS(cs[i].Resources)
			switch {
			case c == corev1.PodQOSBurstable:
				return c
			case class == "":
				class = c
			case class != c:
				return corev1.PodQOSBurstable
			}
		}
	}
	if class == "" {
		return corev1.PodQOSBestEffort
	}
	return class
}

// requirementsQOS is one container's class (requirementsQOS,
// resourceQOS). For cpu and memory each: requests equal to limits and
// zero is BestEffort; equal and not zero is Guaranteed; else Burstable.
// The two must agree.
func requirementsQOS(r corev1.ResourceRequirements) corev1.PodQOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	var class corev1.PodQOSClass
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := r.Requests[name], r.Limits[name]
		c := corev1.PodQOSGuaranteed
		switch {
		case !req.Equal(lim):
			return corev1.PodQOSBurstable
		case req.IsZero():
			c = corev1.PodQOSBestEffort
		}
		if class != "" && class != c {
			return corev1.PodQOSBurstable
		}
		class = c
	}
	return class
}
