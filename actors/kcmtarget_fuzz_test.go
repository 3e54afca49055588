package actors_test

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/actors"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/replayer"
)

// kcmOptions are the options of a kube-controller-manager target's
// campaign: target name's controller on the synthetic user history of
// its kind (history names it), paced as recorded, with its actors beside
// it and its client-go gates fixed.
func kcmOptions(f testing.TB, name, history string) fuzz.Options {
	f.Helper()
	ct, err := actors.Target(name)
	if errors.Is(err, actors.ErrUnknownTarget) && strings.HasSuffix(name, "-stale-consistency-off") {
		f.Skipf("%s: this k8s.io/kubernetes has no KEP-5647 gate to turn off", name)
	}
	if err != nil {
		f.Fatal(err)
	}
	// The client-go gates an input could turn off are fixed as
	// kube-controller-manager ships them. An input that chose others would
	// make its own fault-free reference runs, within the 10 s of real time
	// go test's engine gives it: on 2 loaded cores, more than that.
	gates := fuzz.Gates{harness.GateInOrderInformersBatchProcess: true}
	maps.Copy(gates, ct.Gates)
	return fuzz.Options{
		Cassettes: []string{kcmHistory(f, f.TempDir(), history)},
		Target:    ct.Target,
		Resource:  ct.Resource,
		Actors:    ct.Actors,
		Gates:     gates,
		Pace:      replayer.Pace{Mode: replayer.PaceRecorded},
		Masks:     slices.Concat([]fuzz.Mask{generatedSlices, daemonPodNodes}, scheduledNodes, jobUIDLabels, podIPs),
	}
}

// daemonPodNodes masks the node a DaemonSet's pod is pinned to. The
// controller makes one pod per node, over its node lister's list (a
// map's order) and in parallel batches (pkg/controller/daemon/
// daemon_controller.go: manage, and nodeLister.List at line 1321). The
// pods are generateName'd and matched by order, so two fault-free runs
// may pin "agent-#1" to different nodes.
var daemonPodNodes = fuzz.Mask{Resource: "pods", Path: "spec.affinity",
	Why: "a DaemonSet's generateName'd pods are made per node in a lister's map order: their match to nodes differs between fault-free runs"}

// scheduledNodes mask the node a pod is bound to. The scheduler stand-in
// binds a pod to the fitting node with the fewest pods it knows of
// (actors/scheduler.go, pick). Which pods it knows then is timing a legal
// fault moves: when the controller made them. The controllers under test
// never choose a pod's node.
var scheduledNodes = []fuzz.Mask{
	{Resource: "pods", Path: "spec.nodeName", Why: scheduledWhy},
	{Resource: "pods", Path: "status.hostIP", Why: scheduledWhy},
	{Resource: "pods", Path: "status.hostIPs", Why: scheduledWhy},
}

// scheduledWhy is the scheduledNodes masks' why.
const scheduledWhy = "the scheduler stand-in binds a pod to the node with the fewest pods it knows of: which it knows is timing a fault moves, not the controller's choice"

// podIPs mask a pod's IP. The kubelet stand-in derives it from the pod's
// name (actors/kubelet.go, podIP), and a controller's pods are
// generateName'd: random names, matched between runs by order.
var podIPs = []fuzz.Mask{
	{Resource: "pods", Path: "status.podIP", Why: podIPWhy},
	{Resource: "pods", Path: "status.podIPs", Why: podIPWhy},
}

// podIPWhy is the podIPs masks' why.
const podIPWhy = "the kubelet stand-in derives a pod's IP from its name, random for a generateName'd pod (see metadata.name)"

// jobUIDLabels mask the labels kube-apiserver's Job strategy generates
// from a Job's UID (pkg/registry/batch/job/strategy.go, generateSelector),
// in its selector and template and so on its pods. A Job a fault
// (recreate) makes again under its name has a new, random UID: so are
// they (as metadata.uid, masked by default).
var jobUIDLabels = []fuzz.Mask{
	{Resource: "jobs.batch", Path: `spec.selector.matchLabels["batch.kubernetes.io/controller-uid"]`, Why: jobUIDWhy},
	{Resource: "jobs.batch", Path: `spec.template.metadata.labels["batch.kubernetes.io/controller-uid"]`, Why: jobUIDWhy},
	{Resource: "jobs.batch", Path: "spec.template.metadata.labels.controller-uid", Why: jobUIDWhy},
	{Resource: "pods", Path: `metadata.labels["batch.kubernetes.io/controller-uid"]`, Why: jobUIDWhy},
	{Resource: "pods", Path: "metadata.labels.controller-uid", Why: jobUIDWhy},
}

// jobUIDWhy is the jobUIDLabels masks' why.
const jobUIDWhy = "a Job's generated selector and its pods' labels hold its UID, random for a Job made again (see metadata.uid)"

// generatedSlices masks EndpointSlices as a whole in same-outcome, as
// examples/kvstore does. They are generateName'd, matched by order, and
// hold pod UIDs and IPs the replay gives per create, in the order the
// goroutines reach it: a fault-free run and its reference differ. The
// endpointslice target's other invariants still judge its writes.
var generatedSlices = fuzz.Mask{Resource: "endpointslices.discovery.k8s.io",
	Why: "generateName'd slices holding pod UIDs and IPs given per create: their match differs between fault-free runs"}

// FuzzKCMStatefulSet fuzzes kube-controller-manager's StatefulSet
// controller (KEP-5647's gate at its default, on) on a user's
// StatefulSet: created, scaled up, its template changed, scaled down,
// deleted and recreated.
func FuzzKCMStatefulSet(f *testing.F) {
	fuzz.Run(f, kcmOptions(f, "statefulset", "statefulset"))
}

// FuzzKCMStatefulSetStaleOff is FuzzKCMStatefulSet with the controller
// built with StaleControllerConsistencyStatefulSet off.
func FuzzKCMStatefulSetStaleOff(f *testing.F) {
	fuzz.Run(f, kcmOptions(f, "statefulset-stale-consistency-off", "statefulset"))
}

// FuzzKCMReplicaSet fuzzes the ReplicaSet controller on a user's
// ReplicaSet's lifecycle.
func FuzzKCMReplicaSet(f *testing.F) {
	fuzz.Run(f, kcmOptions(f, "replicaset", "replicaset"))
}

// FuzzKCMReplicaSetStaleOff is FuzzKCMReplicaSet with the controller
// built with StaleControllerConsistencyReplicaSet off.
func FuzzKCMReplicaSetStaleOff(f *testing.F) {
	fuzz.Run(f, kcmOptions(f, "replicaset-stale-consistency-off", "replicaset"))
}

// FuzzKCMDeployment fuzzes the Deployment controller (the ReplicaSet
// controller an actor beside it) on a user's Deployment's lifecycle.
func FuzzKCMDeployment(f *testing.F) {
	fuzz.Run(f, kcmOptions(f, "deployment", "deployment"))
}

// FuzzKCMJob fuzzes the Job controller on a user's Job: created,
// its parallelism raised, its deadline set, parallelism lowered, deleted
// and recreated.
func FuzzKCMJob(f *testing.F) {
	fuzz.Run(f, kcmOptions(f, "job", "job"))
}

// FuzzKCMDaemonSet fuzzes the DaemonSet controller on a user's
// DaemonSet, its template changed thrice, deleted and recreated.
func FuzzKCMDaemonSet(f *testing.F) {
	fuzz.Run(f, kcmOptions(f, "daemonset", "daemonset"))
}

// FuzzKCMEndpointSlice fuzzes the EndpointSlice controller on a Service
// whose ReplicaSet's pods come and go.
func FuzzKCMEndpointSlice(f *testing.F) {
	fuzz.Run(f, kcmOptions(f, "endpointslice", "endpointslice"))
}
