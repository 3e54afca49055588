package actors

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/lwreplay/lwreplay/actor"
)

// readyNode is a Ready node named name with labels.
func readyNode(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}
	n.Status = nodeStatus(name, "10.0.0.1", metav1.Now())
	return n
}

// testBinder is a binder over fixed nodes, pods and claims (no client).
func testBinder(t *testing.T, nodes []*corev1.Node, pods []*corev1.Pod, claims []*corev1.PersistentVolumeClaim) *binder {
	t.Helper()
	idx := func(objs ...any) cache.Indexer {
		i := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		for _, o := range objs {
			if err := i.Add(o); err != nil {
				t.Fatalf("indexer add: got %v, want nil", err)
			}
		}
		return i
	}
	var ns, ps, cs []any
	for _, n := range nodes {
		ns = append(ns, n)
	}
	for _, p := range pods {
		ps = append(ps, p)
	}
	for _, c := range claims {
		cs = append(cs, c)
	}
	return &binder{
		nodes: corelisters.NewNodeLister(idx(ns...)), pods: corelisters.NewPodLister(idx(ps...)),
		claims: corelisters.NewPersistentVolumeClaimLister(idx(cs...)), assumed: map[string]string{}, wait: newDelays(0),
	}
}

func TestSchedulerPick(t *testing.T) {
	taint := corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}
	notReady := readyNode("a", nil)
	notReady.Status.Conditions[0].Status = corev1.ConditionFalse
	cordoned := readyNode("a", nil)
	cordoned.Spec.Unschedulable = true
	tests := []struct {
		name    string
		nodes   []*corev1.Node
		pods    []*corev1.Pod
		assumed map[string]string
		pod     func(*corev1.Pod)
		want    string
	}{
		{name: "scheduler - tie broken by name - pass", nodes: []*corev1.Node{readyNode("b", nil), readyNode("a", nil)}, want: "a"},
		{name: "scheduler - fewest pods - pass", nodes: []*corev1.Node{readyNode("a", nil), readyNode("b", nil)},
			pods: []*corev1.Pod{testPod("x", "a")}, want: "b"},
		{name: "scheduler - finished pods not counted - pass", nodes: []*corev1.Node{readyNode("a", nil), readyNode("b", nil)},
			pods: []*corev1.Pod{succeeded(testPod("x", "a")), testPod("y", "b")}, want: "a"},
		{name: "scheduler - assumed binding counted - pass", nodes: []*corev1.Node{readyNode("a", nil), readyNode("b", nil)},
			pods: []*corev1.Pod{testPod("x", "")}, assumed: map[string]string{assumedKey("default/x", testPod("x", "").UID): "a"}, want: "b"},
		{name: "scheduler - assumed binding shown bound counted once - pass", nodes: []*corev1.Node{readyNode("a", nil), readyNode("b", nil)},
			pods: []*corev1.Pod{testPod("x", "a"), testPod("y", "b"), testPod("z", "b")}, assumed: map[string]string{assumedKey("default/x", testPod("x", "").UID): "a"}, want: "a"},
		{name: "scheduler - not ready node - pass", nodes: []*corev1.Node{notReady, readyNode("b", nil)}, want: "b"},
		{name: "scheduler - unschedulable node - pass", nodes: []*corev1.Node{cordoned, readyNode("b", nil)}, want: "b"},
		{name: "scheduler - untolerated taint - pass", nodes: []*corev1.Node{readyNode("a", nil, taint), readyNode("b", nil)}, want: "b"},
		{name: "scheduler - tolerated taint - pass", nodes: []*corev1.Node{readyNode("a", nil, taint)}, want: "a",
			pod: func(p *corev1.Pod) {
				p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db"}}
			}},
		{name: "scheduler - nodeSelector - pass", nodes: []*corev1.Node{readyNode("a", nil), readyNode("b", map[string]string{"disk": "ssd"})},
			want: "b", pod: func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} }},
		{name: "scheduler - a DaemonSet pod's node affinity on metadata.name - pass",
			nodes: []*corev1.Node{readyNode("a", nil), readyNode("b", nil)}, pods: []*corev1.Pod{testPod("x", "a")}, want: "a",
			pod: func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
						MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}},
					}}},
				}}
			}},
		{name: "scheduler - no node fits - pass", nodes: []*corev1.Node{notReady}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := testBinder(t, tt.nodes, tt.pods, nil)
			for k, v := range tt.assumed {
				b.assumed[k] = v
			}
			p := testPod("new", "")
			if tt.pod != nil {
				tt.pod(p)
			}
			if got, _ := b.pick(p); got != tt.want {
				t.Errorf("pick: got %q, want %q", got, tt.want)
			}
		})
	}
}

// succeeded returns p with phase Succeeded.
func succeeded(p *corev1.Pod) *corev1.Pod {
	p.Status.Phase = corev1.PodSucceeded
	return p
}

func TestSchedulerClaimsBound(t *testing.T) {
	unbound := testClaim("unbound", standard)
	tests := []struct {
		name  string
		claim string
		want  bool
	}{
		{name: "scheduler - claim bound - pass", claim: "bound", want: true},
		{name: "scheduler - claim unbound - pass", claim: "unbound"},
		{name: "scheduler - claim absent - pass", claim: "absent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := testBinder(t, nil, nil, []*corev1.PersistentVolumeClaim{boundClaim("bound"), unbound})
			p := testPod("p", "")
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: tt.claim},
			}}}
			if got := b.claimsBound(p); got != tt.want {
				t.Errorf("claimsBound: got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNodeActorsSchedule(t *testing.T) {
	tests := []struct {
		name      string
		pods      int
		withClaim bool
		gated     bool
		actors    []actor.Actor
		wantNodes []string
	}{
		{name: "scheduler - three pods over three nodes - pass", pods: 3, actors: NodeActors(),
			wantNodes: []string{"kwok-node-0", "kwok-node-1", "kwok-node-2"}},
		{name: "scheduler - pod with a claim - pass", pods: 1, withClaim: true, actors: NodeActors(), wantNodes: []string{"kwok-node-0"}},
		{name: "scheduler - gated pod - pass", pods: 1, gated: true, actors: NodeActors(), wantNodes: []string{""}},
		{name: "scheduler - pod with a claim, no provisioner - pass", pods: 1, withClaim: true,
			actors: []actor.Actor{Scheduler(), Kubelet(KubeletConfig{})}, wantNodes: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := startReplay(t, tt.actors)
				defer c.stop(t)
				if tt.withClaim {
					if _, err := c.cs.CoreV1().PersistentVolumeClaims("default").Create(t.Context(), testClaim("data", standard), metav1.CreateOptions{}); err != nil {
						t.Fatalf("create claim: got %v, want nil", err)
					}
				}
				for i := range tt.pods {
					p := testPod(fmt.Sprintf("p%d", i), "")
					if tt.gated {
						p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/wait"}}
					}
					if tt.withClaim {
						p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
							PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"},
						}}}
					}
					if _, err := c.cs.CoreV1().Pods("default").Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
						t.Fatalf("create pod: got %v, want nil", err)
					}
				}
				time.Sleep(10 * time.Second)
				synctest.Wait()
				var nodes []string
				for i := range tt.pods {
					p, got := c.getPod(t.Context(), fmt.Sprintf("p%d", i))
					if p == nil {
						t.Fatalf("pod p%d: got %s, want present", i, got)
					}
					nodes = append(nodes, p.Spec.NodeName)
					if scheduled := p.Spec.NodeName != ""; scheduled != isRunningReady(p) {
						t.Errorf("pod p%d: got %s, want Running and Ready iff scheduled", i, got)
					}
				}
				slices.Sort(nodes)
				if fmt.Sprint(nodes) != fmt.Sprint(tt.wantNodes) {
					t.Errorf("pods' nodes: got %q, want %q", nodes, tt.wantNodes)
				}
			})
		})
	}
}

// TestNodeActorsDeterminism re-runs one scenario of the three node actors:
// a claim, four pods, a graceful delete. It wants the same pods, claims,
// resourceVersions and times each time ($LWREPLAY_RERUNS runs, else 20).
func TestNodeActorsDeterminism(t *testing.T) {
	run := func() string {
		var out string
		synctest.Test(t, func(t *testing.T) {
			c := startReplay(t, NodeActors())
			defer c.stop(t)
			// The actors start first, and make their nodes, as in a run;
			// a target's writes at the same instants interleave with theirs.
			time.Sleep(time.Second)
			if _, err := c.cs.CoreV1().PersistentVolumeClaims("default").Create(t.Context(), testClaim("data", standard), metav1.CreateOptions{}); err != nil {
				t.Fatalf("create claim: got %v, want nil", err)
			}
			for i := range 4 {
				p := testPod(fmt.Sprintf("p%d", i), "")
				if i == 0 {
					p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
						PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"},
					}}}
				}
				if _, err := c.cs.CoreV1().Pods("default").Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
					t.Fatalf("create pod: got %v, want nil", err)
				}
			}
			time.Sleep(10 * time.Second)
			if err := c.cs.CoreV1().Pods("default").Delete(t.Context(), "p1", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](5)}); err != nil {
				t.Fatalf("delete pod: got %v, want nil", err)
			}
			time.Sleep(10 * time.Second)
			synctest.Wait()
			pods, err := c.cs.CoreV1().Pods("").List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatalf("list pods: got %v, want nil", err)
			}
			for _, p := range pods.Items {
				out += fmt.Sprintf("%s rv=%s %s start=%v\n", p.Name, p.ResourceVersion, podState(&p), p.Status.StartTime)
			}
			pvcs, err := c.cs.CoreV1().PersistentVolumeClaims("").List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatalf("list claims: got %v, want nil", err)
			}
			for _, v := range pvcs.Items {
				out += fmt.Sprintf("%s rv=%s %s %s\n", v.Name, v.ResourceVersion, v.Spec.VolumeName, v.Status.Phase)
			}
		})
		return out
	}
	reruns := 20
	if n, err := strconv.Atoi(os.Getenv("LWREPLAY_RERUNS")); err == nil && n > 0 {
		reruns = n
	} else if testing.Short() {
		reruns = 3
	}
	first := run()
	if !strings.Contains(first, "p0 ") || strings.Contains(first, "p1 rv=") {
		t.Fatalf("run 0: got\n%s\nwant p0 and no p1 (deleted)", first)
	}
	for i := range reruns {
		if got := run(); got != first {
			t.Fatalf("run %d: got\n%s\nwant (run 0)\n%s", i+1, got, first)
		}
	}
}
