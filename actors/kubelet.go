package actors

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/lwreplay/lwreplay/actor"
)

// ExitCodeAnnotation on a pod a Job owns asks the kubelet stand-in to end
// its containers with that exit code. "1" makes the pod Failed, as a
// failing container would. Without it the pod Succeeded.
const ExitCodeAnnotation = "lwreplay.dev/exit-code"

// DefaultNodes is the number of nodes the kubelet stand-in keeps unless
// told otherwise.
const DefaultNodes = 3

// DefaultStageDelay is the kubelet stand-in's default wait before a pod
// stage: kwok's general stages' 1s, without their random jitter.
const DefaultStageDelay = time.Second

// NodeName returns the name of the kubelet stand-in's i-th node, as kwok
// names its nodes: "kwok-node-0", "kwok-node-1", ...
func NodeName(i int) string { return "kwok-node-" + strconv.Itoa(i) }

// KubeletConfig configures the kubelet stand-in.
type KubeletConfig struct {
	// Nodes is how many nodes it keeps (DefaultNodes when 0).
	Nodes int
	// StageDelay is how long each pod stage waits once due (kwok's
	// general stages wait 1s plus a random jitter): DefaultStageDelay
	// when 0, none when negative.
	StageDelay time.Duration
	// Heartbeat, when set, renews each node's Lease in kube-node-lease
	// at that period (the kubelet's default is 10s). Zero renews none,
	// and nodes stay Ready as long as no node lifecycle controller runs
	// (none is an actor). Set it beside a real kube-controller-manager.
	// That marks a node without renewals unreachable after its
	// node-monitor-grace-period.
	Heartbeat time.Duration
}

// Kubelet returns the actor "kubelet": a kubelet stand-in. It keeps cfg.Nodes
// Ready nodes (kwok's node-initialize stage). It moves the pods bound to any node
// through kwok's default pod stages (kustomize/stage/pod/fast), in virtual time.
// Each comes StageDelay after it became due: the delay of its general stages,
// without their random jitter.
//
//   - pod-ready: a Pending pod becomes Running with every container
//     running and ready, conditions PodScheduled, Initialized,
//     ContainersReady and Ready True, hostIP and podIP set (one status
//     write through pods/status);
//   - pod-complete: a Running pod a Job owns ends Succeeded, its
//     containers terminated with exit code 0, or Failed with the code
//     ExitCodeAnnotation names;
//   - pod-delete: a pod with a deletionTimestamp is deleted with
//     gracePeriodSeconds=0 once its grace period has passed (kwok deletes
//     at once; a kubelet after its containers stopped, at the latest then).
//
// kwok itself is not imported. sigs.k8s.io/kwok v0.8.0 pins client-go
// v0.36 and controller-runtime v0.24. Its stages are templates over
// random delays; their sequence is written here with a fixed one.
func Kubelet(cfg KubeletConfig) actor.Actor {
	if cfg.Nodes <= 0 {
		cfg.Nodes = DefaultNodes
	}
	if cfg.StageDelay == 0 {
		cfg.StageDelay = DefaultStageDelay
	}
	return actor.Actor{
		Name: "kubelet",
		Doc: "a kubelet stand-in: keeps " + strconv.Itoa(cfg.Nodes) + " Ready nodes kwok-node-N and moves bound pods to Running/Ready, " +
			"Job pods to Succeeded, deleted pods away after their grace period (kwok v0.8.0's default stages, not imported)",
		// It keeps every node: a recording's later node heartbeats are
		// dropped, its nodes' pods are moved by it.
		Takes:   []actor.Takeover{{Resource: schema.GroupResource{Resource: "nodes"}}},
		Kubelet: true,
		Run: func(ctx context.Context, env actor.Env) error {
			cs, err := clientFor(env, "kubelet")
			if err != nil {
				return err
			}
			return (&kubelet{cs: cs, cfg: cfg}).run(ctx)
		},
	}
}

// kubelet is one run of the kubelet stand-in.
type kubelet struct {
	cs   kubernetes.Interface
	cfg  KubeletConfig
	pods corelisters.PodLister
	q    *keyQueue
	wait *delays
}

// run makes the nodes, then moves pods until ctx ends.
func (k *kubelet) run(ctx context.Context) error {
	for i := range k.cfg.Nodes {
		// A fault on the actor's requests may refuse one: retry, in
		// virtual time, before giving up on starting.
		backoff := wait.Backoff{Duration: time.Second, Factor: 2, Steps: 6}
		err := retry.OnError(backoff, func(error) bool { return ctx.Err() == nil }, func() error { return k.ensureNode(ctx, i) })
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
	}
	f := informers.NewSharedInformerFactory(k.cs, 0)
	defer f.Shutdown()
	inf := f.Core().V1().Pods()
	k.pods = inf.Lister()
	k.q = newKeyQueue("kubelet")
	k.wait = newDelays(k.cfg.StageDelay)
	enqueue := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			k.q.add(cache.MetaObjectToName(p).String())
		}
	}
	if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}); err != nil {
		return fmt.Errorf("kubelet: pod handler: %w", err)
	}
	f.Start(ctx.Done())
	if k.cfg.Heartbeat > 0 {
		done := make(chan struct{})
		go func() { defer close(done); k.heartbeat(ctx) }()
		defer func() { <-done }()
	}
	k.q.run(ctx, k.sync)
	return nil
}

// ensureNode creates node i when it does not exist and makes it Ready
// (kwok's node-initialize stage: conditions, addresses, capacity, info).
func (k *kubelet) ensureNode(ctx context.Context, i int) error {
	name := NodeName(i)
	n, err := k.cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		n, err = k.cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "type": "kwok",
			},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
		}}, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("kubelet: node %s: %w", name, err)
	}
	if !isNodeReady(n) {
		n.Status = nodeStatus(name, nodeIP(i), metav1.Now())
		if n, err = k.cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("kubelet: node %s status: %w", name, err)
		}
	}
	return k.untaint(ctx, n)
}

// untaint removes the taint node.kubernetes.io/not-ready:NoSchedule that
// kube-apiserver's TaintNodesByCondition admission puts on a new node.
// kube-controller-manager's node lifecycle controller does so once the
// node is Ready. That controller is not an actor here. The replay has no
// admission: its nodes carry no such taint.
func (k *kubelet) untaint(ctx context.Context, n *corev1.Node) error {
	kept := slices.DeleteFunc(slices.Clone(n.Spec.Taints), func(t corev1.Taint) bool {
		return t.Key == corev1.TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule
	})
	if len(kept) == len(n.Spec.Taints) {
		return nil
	}
	n = n.DeepCopy()
	n.Spec.Taints = kept
	if _, err := k.cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("kubelet: node %s taints: %w", n.Name, err)
	}
	return nil
}

// nodeStatus is a Ready node's status as kwok's node-initialize writes it.
func nodeStatus(name, ip string, now metav1.Time) corev1.NodeStatus {
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, Reason: reason, Message: msg, LastHeartbeatTime: now, LastTransitionTime: now}
	}
	res := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods: resource.MustParse("110"), corev1.ResourceEphemeralStorage: resource.MustParse("1Ti"),
	}
	return corev1.NodeStatus{
		Capacity: res, Allocatable: res, Phase: corev1.NodeRunning,
		Conditions: []corev1.NodeCondition{
			cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
			cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
			cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
			cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
			cond(corev1.NodeNetworkUnavailable, corev1.ConditionFalse, "RouteCreated", "RouteController created a route"),
		},
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeHostName, Address: name}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
		NodeInfo: corev1.NodeSystemInfo{
			Architecture: "amd64", OperatingSystem: "linux", KubeletVersion: "kwok-v0.8.0",
			KernelVersion: "kwok-v0.8.0", ContainerRuntimeVersion: "kwok-v0.8.0",
		},
	}
}

// isNodeReady reports whether n's Ready condition is True.
func isNodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// nodeIP is the InternalIP of node i: 10.0.0.(i+1), as kwok's default
// node CIDR hands them out; nodes it does not name get 10.0.0.1.
func nodeIP(i int) string { return fmt.Sprintf("10.0.%d.%d", (i+1)/250, (i+1)%250) }

// podIP is a pod's IP: 10.(64+h>>16 mod 64).(h>>8).(h) of a hash h of
// its namespace and name. So it is a function of the pod alone.
func podIP(namespace, name string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(namespace + "/" + name))
	v := h.Sum32()
	return fmt.Sprintf("10.%d.%d.%d", 64+(v>>16)%64, (v>>8)&0xff, 1+(v&0xff)%254)
}

// heartbeat renews each node's Lease every k.cfg.Heartbeat until ctx ends.
func (k *kubelet) heartbeat(ctx context.Context) {
	t := time.NewTicker(k.cfg.Heartbeat)
	defer t.Stop()
	for {
		for i := range k.cfg.Nodes {
			_ = k.renewLease(ctx, NodeName(i))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// renewLease creates or renews node's Lease, as the kubelet's node lease
// controller does (40s lease, holder the node).
func (k *kubelet) renewLease(ctx context.Context, node string) error {
	leases := k.cs.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	now := metav1.NewMicroTime(time.Now())
	l, err := leases.Get(ctx, node, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = leases.Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: node, Namespace: corev1.NamespaceNodeLease},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity: ptr.To(node), LeaseDurationSeconds: ptr.To[int32](40), RenewTime: &now,
			},
		}, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	l.Spec.RenewTime = &now
	_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
	return err
}
