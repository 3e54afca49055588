package kuberay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/go-logr/logr"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// ErrPods says a RayCluster's end state has not the Pods its spec asks.
var ErrPods = errors.New("a raycluster's pods do not match its spec")

// ErrStatus says a RayCluster's end status does not report its Pods.
var ErrStatus = errors.New("a raycluster's status does not report its pods")

// podsMatchSpec is the RayCluster controller's promise on Pods, judged on
// the run's end state as served. KubeRay's docs ("RayCluster
// configuration"): a RayCluster has one head Pod and, for each worker
// group, replicas worker Pods (within minReplicas and maxReplicas); a
// suspended cluster or group has none. reconcilePods
// (raycluster_controller.go:549-834) creates the missing and deletes the
// extra; its scale expectations guard against duplicates from a stale
// cache.
var podsMatchSpec = fuzz.NewInvariant("raycluster-pods-match-spec",
	"every RayCluster ends with exactly one head Pod and, for each worker group, GetWorkerGroupDesiredReplicas worker Pods, controlled by its UID; none when it is suspended",
	func(truth *history.Log, obs *fuzz.Observation) error {
		clusters, err := endClusters(truth, obs)
		if err != nil {
			return err
		}
		owned, err := ownedPods(obs)
		if err != nil {
			return err
		}
		var errs []error
		for _, rc := range clusters {
			want := map[string]int{utils.RayNodeHeadGroupLabelValue: 1}
			for _, g := range rc.Spec.WorkerGroupSpecs {
				want[g.GroupName] = int(utils.GetWorkerGroupDesiredReplicas(quiet, g))
			}
			if rc.Spec.Suspend != nil && *rc.Spec.Suspend {
				want = map[string]int{}
			}
			got := map[string][]string{}
			for _, p := range owned[rc.UID] {
				got[p.Labels[utils.RayNodeGroupLabelKey]] = append(got[p.Labels[utils.RayNodeGroupLabelKey]], p.Name)
			}
			for g := range got {
				if _, ok := want[g]; !ok {
					want[g] = 0
				}
			}
			for g, n := range want {
				if len(got[g]) != n {
					sort.Strings(got[g])
					errs = append(errs, fmt.Errorf("%w: %s/%s group %q: got %d pods %v, want %d", ErrPods, rc.Namespace, rc.Name, g, len(got[g]), got[g], n))
				}
			}
		}
		sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
		return errors.Join(errs...)
	})

// statusReportsPods is the promise of the RayCluster's status, judged on
// the run's end state. calculateStatus (raycluster_controller.go:1397)
// sets desiredWorkerReplicas to the sum of the groups' desired replicas
// and head.podName to the head Pod's name. updateRayClusterStatus writes
// it whenever either differs (utils/consistency.go:16-34).
var statusReportsPods = fuzz.NewInvariant("raycluster-status-reports-pods",
	"every RayCluster ends with status.desiredWorkerReplicas its groups' desired replicas, and status.head.podName its head Pod's name (empty when it has none)",
	func(truth *history.Log, obs *fuzz.Observation) error {
		clusters, err := endClusters(truth, obs)
		if err != nil {
			return err
		}
		owned, err := ownedPods(obs)
		if err != nil {
			return err
		}
		var errs []error
		for _, rc := range clusters {
			if want := utils.CalculateDesiredReplicas(quiet, rc); rc.Status.DesiredWorkerReplicas != want {
				errs = append(errs, fmt.Errorf("%w: %s/%s: status.desiredWorkerReplicas %d, want %d", ErrStatus, rc.Namespace, rc.Name, rc.Status.DesiredWorkerReplicas, want))
			}
			var heads []string
			for _, p := range owned[rc.UID] {
				if p.Labels[utils.RayNodeTypeLabelKey] == string(rayv1.HeadNode) {
					heads = append(heads, p.Name)
				}
			}
			if len(heads) > 1 {
				continue // podsMatchSpec's to report
			}
			want := ""
			if len(heads) == 1 {
				want = heads[0]
			}
			if rc.Status.Head.PodName != want {
				errs = append(errs, fmt.Errorf("%w: %s/%s: status.head.podName %q, want %q", ErrStatus, rc.Namespace, rc.Name, rc.Status.Head.PodName, want))
			}
		}
		sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
		return errors.Join(errs...)
	})

// quiet is the context KubeRay's helpers are called with: they log
// through it, and an invariant logs nothing.
var quiet = ctrl.LoggerInto(context.Background(), logr.Discard())

// endClusters are the RayClusters of the run's end state not being
// deleted, as served (the truth's when none was served).
func endClusters(truth *history.Log, obs *fuzz.Observation) ([]*rayv1.RayCluster, error) {
	l, ok := obs.Served.Log(rayClusters)
	if !ok {
		l = truth
	}
	var out []*rayv1.RayCluster
	for _, o := range l.StateAt(l.End()) {
		rc := &rayv1.RayCluster{}
		if err := json.Unmarshal(o.Raw, rc); err != nil {
			return nil, fmt.Errorf("%s: %w", o.Key(), err)
		}
		if rc.DeletionTimestamp == nil {
			out = append(out, rc)
		}
	}
	return out, nil
}

// ownedPods are the served end state's Pods not being deleted, by the UID
// of their controller.
func ownedPods(obs *fuzz.Observation) (map[types.UID][]*corev1.Pod, error) {
	out := map[types.UID][]*corev1.Pod{}
	l, ok := obs.Served.Log(pods)
	if !ok {
		return out, nil
	}
	for _, o := range l.StateAt(l.End()) {
		p := &corev1.Pod{}
		if err := json.Unmarshal(o.Raw, p); err != nil {
			return nil, fmt.Errorf("%s: %w", o.Key(), err)
		}
		if ref := metav1.GetControllerOf(p); ref != nil && p.DeletionTimestamp == nil {
			out[ref.UID] = append(out[ref.UID], p)
		}
	}
	return out, nil
}
