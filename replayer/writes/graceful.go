package writes

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Graceful deletion of pods, as kube-apiserver's generic store and the
// pod strategy do it (k8s.io/apiserver v0.37.2
// pkg/registry/rest/delete.go BeforeDelete,
// pkg/registry/generic/registry/store.go Delete and
// updateForGracefulDeletionAndFinalizers; k8s.io/kubernetes v1.37.2
// pkg/registry/core/pod/strategy.go CheckGracefulDelete).
//
// A DELETE with a grace period of a scheduled pod that has not terminated
// keeps the pod (a MODIFIED event). It sets metadata.deletionTimestamp =
// now + grace and deletionGracePeriodSeconds = grace. The pod's kubelet
// deletes it with grace 0 once its containers stopped. A DELETE with grace
// 0 (or of an unscheduled or terminated pod) stores that mark at once. It
// then deletes the pod (a MODIFIED and a DELETED event), unless finalizers
// keep it. A DELETE of a pod being deleted can only shorten the grace.

// defaultTerminationGracePeriod is the pod spec's default
// terminationGracePeriodSeconds (k8s.io/kubernetes pkg/apis/core/v1
// defaults.go SetDefaults_PodSpec): built-in kinds are not defaulted
// here, so a pod without one takes it.
const defaultTerminationGracePeriod = 30

// GracefulKind reports whether k deletes gracefully in kube-apiserver:
// the core pods resource, the only one whose delete strategy is a
// RESTGracefulDeleteStrategy. Kind.Graceful turns it on.
func GracefulKind(k Kind) bool {
	return k.Builtin && k.Resource.Group == "" && k.Resource.Resource == "pods"
}

// beforeGracefulDelete is rest.BeforeDelete's graceful part for a kind
// with a graceful strategy. It marks obj (a copy of the stored object) for
// deletion and reports graceful. Or it reports pending, when a graceful
// deletion is going on that the request does not shorten. It reports
// neither when the delete is not graceful (an object being deleted with
// no grace left). The grace asked, opts.GracePeriodSeconds, is set to the
// grace taken (CheckGracefulDelete "ensure the options and the pod are in
// sync").
func beforeGracefulDelete(obj *unstructured.Unstructured, opts *metav1.DeleteOptions, now time.Time) (graceful, pending bool) {
	if dt := obj.GetDeletionTimestamp(); dt != nil {
		cur := obj.GetDeletionGracePeriodSeconds()
		if cur == nil || *cur == 0 {
			return false, false // the mark is stored and the delete failed: delete now
		}
		if opts.GracePeriodSeconds == nil {
			opts.GracePeriodSeconds = cur
			return false, true
		}
		period := *opts.GracePeriodSeconds
		if period >= *cur {
			return false, true // only a shorter grace period may be given
		}
		ts := metav1.NewTime(dt.Add(-time.Duration(*cur) * time.Second).Add(time.Duration(period) * time.Second))
		if ts.Time.Before(now) { // never into the past
			ts = metav1.NewTime(now)
			if period != 0 {
				period = 1
			}
		}
		obj.SetDeletionTimestamp(&ts)
		obj.SetDeletionGracePeriodSeconds(&period)
		return true, false
	}
	period := podGracePeriod(obj, opts)
	opts.GracePeriodSeconds = &period
	ts := metav1.NewTime(now.Add(time.Duration(period) * time.Second))
	obj.SetDeletionTimestamp(&ts)
	obj.SetDeletionGracePeriodSeconds(&period)
	if obj.GetGeneration() > 0 { // the first graceful deletion bumps it
		obj.SetGeneration(obj.GetGeneration() + 1)
	}
	return true, false
}

// podGracePeriod is podStrategy.CheckGracefulDelete's grace period. It is
// the request's, else the pod's terminationGracePeriodSeconds (defaulted).
// It is 0 for a pod not scheduled or terminated (phase Succeeded or
// Failed), and 1 for a negative one.
func podGracePeriod(pod *unstructured.Unstructured, opts *metav1.DeleteOptions) int64 {
	period := int64(defaultTerminationGracePeriod)
	if opts.GracePeriodSeconds != nil {
		period = *opts.GracePeriodSeconds
	} else if p, ok, _ := unstructured.NestedInt64(pod.Object, "spec", "terminationGracePeriodSeconds"); ok {
		period = p
	}
	node, _, _ := unstructured.NestedString(pod.Object, "spec", "nodeName")
	phase, _, _ := unstructured.NestedString(pod.Object, "status", "phase")
	if node == "" || phase == "Succeeded" || phase == "Failed" {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	return period
}
