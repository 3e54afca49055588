package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/lwreplay/lwreplay/cassette"
)

// Generate returns a cassette of realistic ConfigMap and Pod traffic. Per
// kind, it holds a LIST of the initial objects and a watch carrying Events
// changes. The changes are status changes, label and data edits, creations,
// and deletions (graceful ones for pods). Now and then one name is deleted
// and created again with a new UID.
//
// Options that fail Validate are refused before anything is generated.
func Generate(o GenerateOptions) (*cassette.File, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	b := NewBuilder()
	generate(o, b)
	return b.Cassette(o.cassetteOptions())
}

// cassetteOptions returns the traffic options of o.
func (o GenerateOptions) cassetteOptions() CassetteOptions {
	return CassetteOptions{PageSize: o.PageSize, BookmarkEvery: o.BookmarkEvery}
}

// generate makes the history o asks for (options valid) in b.
func generate(o GenerateOptions, b *Builder) {
	if o.Kinds == nil {
		o.Kinds = slices.Clone(kinds)
	}
	if o.Namespaces == 0 {
		o.Namespaces = 3
	}
	g := &gen{o: o, r: rand.New(rand.NewPCG(uint64(o.Seed), 0x6c777265706c6179)), b: b, index: map[string]int{}}
	g.start = g.b.now
	for k := range o.Namespaces {
		g.namespaces = append(g.namespaces, namespaceName(k))
	}
	for k := range o.Objects {
		g.add(g.newObject(o.Kinds[k%len(o.Kinds)], "", ""))
	}
	g.b.Snapshot()
	g.b.now = g.start.Add(time.Second) // the watch starts a second after the list
	for n := 0; n < o.Events && g.b.err == nil; {
		n += g.event(o.Events - n)
	}
}

// object is a typed object with metadata: *corev1.ConfigMap or *corev1.Pod.
type object interface {
	runtime.Object
	metav1.Object
}

type gen struct {
	o          GenerateOptions
	r          *rand.Rand
	b          *Builder
	start      time.Time
	namespaces []string
	live       []object       // objects that exist now
	index      map[string]int // key -> index in live
	recreated  bool
}

var (
	apps     = []string{"frontend", "cart", "checkout", "payments", "search", "auth", "catalog", "shipping", "recommend", "ledger", "notify", "gateway"}
	tiers    = []string{"web", "backend", "cache", "worker"}
	nsNames  = []string{"default", "shop", "platform", "monitoring", "data", "ingress"}
	cmKinds  = []string{"config", "env", "settings", "flags", "scripts"}
	levels   = []string{"debug", "info", "warn", "error"}
	features = []string{"NEW_CHECKOUT", "DARK_MODE", "FAST_SEARCH", "BETA_API", "AUDIT_LOG"}
)

func namespaceName(k int) string {
	if k < len(nsNames) {
		return nsNames[k]
	}
	return fmt.Sprintf("team-%d", k)
}

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

// suffix returns n random characters as kube-apiserver's name generator uses.
func (g *gen) suffix(n int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

func (g *gen) uid() types.UID {
	return types.UID(fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", g.r.Uint32(), g.r.Uint32()&0xffff,
		g.r.Uint32()&0xfff, g.r.Uint32()&0x3fff|0x8000, g.r.Uint64()&0xffffffffffff))
}

// hex64 returns 64 random hex digits, as image digests and container IDs have.
func (g *gen) hex64() string {
	return fmt.Sprintf("%016x%016x%016x%016x", g.r.Uint64(), g.r.Uint64(), g.r.Uint64(), g.r.Uint64())
}

// next returns when the builder's next change happens.
func (g *gen) next() metav1.Time { return metav1.NewTime(g.b.now.Add(g.b.step)) }

// event makes one change (or two, for a graceful pod deletion or a
// re-creation) with at most left events and returns how many it made.
func (g *gen) event(left int) int {
	g.b.step = time.Duration(20+g.r.IntN(1500)) * time.Millisecond
	if len(g.live) == 0 {
		g.add(g.newObject(g.pick(g.o.Kinds), "", ""))
		return 1
	}
	if left >= 2 && (g.r.IntN(40) == 0 || (!g.recreated && g.o.Events-left >= g.o.Events/2)) {
		g.recreated = true
		old := g.live[g.r.IntN(len(g.live))]
		g.remove(old)
		g.b.step = 0 // created again at once, as a controller would
		g.add(g.newObject(kindOf(old), old.GetNamespace(), old.GetName()))
		return 2
	}
	obj := g.live[g.r.IntN(len(g.live))]
	switch p := g.r.IntN(100); {
	case p < 60:
		g.update(obj)
		return 1
	case p < 75:
		if pod, ok := obj.(*corev1.Pod); ok && left >= 2 {
			grace := int64(30)
			pod.DeletionGracePeriodSeconds = &grace
			ts := metav1.NewTime(g.next().Add(30 * time.Second))
			pod.DeletionTimestamp = &ts
			g.b.Update(pod)
			g.remove(pod)
			return 2
		}
		g.remove(obj)
		return 1
	}
	g.add(g.newObject(g.pick(g.o.Kinds), "", ""))
	return 1
}

func kindOf(o object) string {
	if _, ok := o.(*corev1.Pod); ok {
		return "pods"
	}
	return "configmaps"
}

func (g *gen) add(o object) {
	g.b.Add(o)
	g.index[key(o)] = len(g.live)
	g.live = append(g.live, o)
}

func (g *gen) remove(o object) {
	g.b.Delete(o)
	k := key(o)
	i := g.index[k]
	last := g.live[len(g.live)-1]
	g.live[i], g.index[key(last)] = last, i
	g.live = g.live[:len(g.live)-1]
	delete(g.index, k)
}

// newObject returns a new object of kind, named name in ns, or with a new
// name in a random namespace when name is "".
func (g *gen) newObject(kind, ns, name string) object {
	app, tier := g.pick(apps), g.pick(tiers)
	for name == "" {
		ns = g.pick(g.namespaces)
		if kind == "pods" {
			name = app + "-" + g.suffix(10) + "-" + g.suffix(5)
		} else {
			name = app + "-" + g.pick(cmKinds) + "-" + g.suffix(5)
		}
		if _, taken := g.index[ns+"/"+name]; taken {
			name = ""
		}
	}
	meta := metav1.ObjectMeta{Namespace: ns, Name: name, UID: g.uid(),
		Labels: map[string]string{"app": app, "tier": tier, "app.kubernetes.io/managed-by": "Helm"}}
	if !g.b.snapped { // an object of the initial state, created a while ago
		meta.CreationTimestamp = metav1.NewTime(g.start.Add(-time.Duration(1+g.r.IntN(90*24*60)) * time.Minute))
	}
	if kind == "configmaps" {
		cm := &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{}}
		for range 1 + g.r.IntN(4) {
			g.editData(cm)
		}
		return cm
	}
	return g.newPod(meta, app)
}

// editData sets one data key of cm to a new value.
func (g *gen) editData(cm *corev1.ConfigMap) {
	switch g.r.IntN(4) {
	case 0:
		cm.Data["LOG_LEVEL"] = g.pick(levels)
	case 1:
		cm.Data["FEATURE_"+g.pick(features)] = fmt.Sprint(g.r.IntN(2) == 0)
	case 2:
		cm.Data["timeout"] = fmt.Sprintf("%ds", 5+g.r.IntN(120))
	default:
		var b strings.Builder
		fmt.Fprintf(&b, "server:\n  port: %d\n  workers: %d\ndatabase:\n  host: %s-db.%s.svc.cluster.local\n  pool: %d\n",
			8000+g.r.IntN(100), 1+g.r.IntN(16), cm.Labels["app"], cm.Namespace, 5+g.r.IntN(50))
		b.WriteString("limits:\n")
		for range g.r.IntN(30) {
			fmt.Fprintf(&b, "  %s: %d\n", g.suffix(8), g.r.IntN(100000))
		}
		cm.Data["application.yaml"] = b.String()
	}
}

func (g *gen) newPod(meta metav1.ObjectMeta, app string) *corev1.Pod {
	hash := g.suffix(10)
	if parts := strings.Split(meta.Name, "-"); len(parts) >= 3 {
		hash = parts[len(parts)-2]
	}
	rs := meta.Name[:max(0, strings.LastIndexByte(meta.Name, '-'))]
	meta.Labels["pod-template-hash"] = hash
	meta.GenerateName = rs + "-"
	yes := true
	meta.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: g.uid(), Controller: &yes, BlockOwnerDeletion: &yes}}
	cpu := *resource.NewMilliQuantity(int64(50*(1+g.r.IntN(10))), resource.DecimalSI)
	mem := *resource.NewQuantity(int64(64*(1+g.r.IntN(16)))<<20, resource.BinarySI)
	grace := int64(30)
	c := corev1.Container{
		Name:  app,
		Image: fmt.Sprintf("registry.example.com/%s/%s:v1.%d.%d", meta.Namespace, app, g.r.IntN(30), g.r.IntN(10)),
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
		Env:   []corev1.EnvVar{{Name: "LOG_LEVEL", Value: g.pick(levels)}, {Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: mem},
		},
		TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		ImagePullPolicy: corev1.PullIfNotPresent,
	}
	p := &corev1.Pod{ObjectMeta: meta, Spec: corev1.PodSpec{
		Containers: []corev1.Container{c}, RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst,
		ServiceAccountName: app, SchedulerName: corev1.DefaultSchedulerName, TerminationGracePeriodSeconds: &grace,
	}, Status: corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBurstable}}
	if g.r.IntN(4) == 0 {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "envoy", Image: "envoyproxy/envoy:v1.31.2",
			Ports:     []corev1.ContainerPort{{Name: "admin", ContainerPort: 9901, Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(10, resource.DecimalSI), corev1.ResourceMemory: *resource.NewQuantity(32<<20, resource.BinarySI)}}})
	}
	if meta.CreationTimestamp.IsZero() {
		return p // a new pod: the scheduler has yet to place it
	}
	at := meta.CreationTimestamp.Add(time.Second)
	g.advancePod(p, metav1.NewTime(at))
	if g.r.IntN(10) != 0 { // most pods of the initial state run
		g.advancePod(p, metav1.NewTime(at.Add(5*time.Second)))
	}
	return p
}

// update makes one change to o: a label edit, a data edit or a pod status change.
func (g *gen) update(o object) {
	pod, isPod := o.(*corev1.Pod)
	switch {
	case g.r.IntN(5) == 0:
		o.GetLabels()["version"] = fmt.Sprintf("v1.%d.%d", g.r.IntN(30), g.r.IntN(10))
	case isPod:
		g.advancePod(pod, g.next())
	default:
		g.editData(o.(*corev1.ConfigMap))
	}
	g.b.Update(o)
}

// advancePod moves p one step through its life: scheduled, running, then
// readiness flips and container restarts.
func (g *gen) advancePod(p *corev1.Pod, at metav1.Time) {
	st := &p.Status
	switch {
	case p.Spec.NodeName == "":
		node := g.r.IntN(12)
		p.Spec.NodeName = fmt.Sprintf("node-%02d", node)
		st.HostIP = fmt.Sprintf("10.0.0.%d", 10+node)
		st.HostIPs = []corev1.HostIP{{IP: st.HostIP}}
		st.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: at}}
	case st.Phase == corev1.PodPending:
		st.Phase, st.StartTime = corev1.PodRunning, &at
		st.PodIP = fmt.Sprintf("10.244.%d.%d", g.r.IntN(12), 2+g.r.IntN(250))
		st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
		for _, t := range []corev1.PodConditionType{corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
			st.Conditions = append(st.Conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: at})
		}
		st.ContainerStatuses = nil
		for _, c := range p.Spec.Containers {
			st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{
				Name: c.Name, Image: c.Image, ImageID: c.Image + "@sha256:" + g.hex64(), Ready: true, Started: ptrTrue(),
				ContainerID: "containerd://" + g.hex64(), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at}},
			})
		}
	case g.r.IntN(2) == 0 && len(st.ContainerStatuses) > 0:
		cs := &st.ContainerStatuses[0]
		cs.RestartCount++
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 137, Reason: "OOMKilled", StartedAt: cs.State.Running.StartedAt, FinishedAt: at, ContainerID: cs.ContainerID}}
		cs.ContainerID = "containerd://" + g.hex64()
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: at}
	default:
		ready := corev1.ConditionFalse
		if i := slices.IndexFunc(st.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.PodReady }); i >= 0 && st.Conditions[i].Status == ready {
			ready = corev1.ConditionTrue
		}
		for i := range st.Conditions {
			if t := st.Conditions[i].Type; t == corev1.PodReady || t == corev1.ContainersReady {
				st.Conditions[i].Status, st.Conditions[i].LastTransitionTime = ready, at
			}
		}
		for i := range st.ContainerStatuses {
			st.ContainerStatuses[i].Ready = ready == corev1.ConditionTrue
		}
	}
}

func ptrTrue() *bool {
	t := true
	return &t
}
