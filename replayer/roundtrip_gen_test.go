package replayer_test

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/meta"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/randfill"
)

// widgetGVK is the kind of the custom resource the round trip carries as
// unstructured objects.
var widgetGVK = schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "Widget"}

// objectGen fills API objects for one seed, as Kubernetes' own round-trip
// tests do (apitesting/fuzzer with the metav1 fuzzer funcs). Added funcs
// keep the objects servable:
//   - names and namespaces are DNS labels, names unique;
//   - resourceVersions are increasing decimal strings in fill order;
//   - strings reach past printable ASCII;
//   - custom resources are unstructured, with their kind and apiVersion
//     set.
type objectGen struct {
	f    *randfill.Filler
	rnd  *rand.Rand
	rv   uint64 // the last resourceVersion given
	name int    // names given so far
}

// rvBases are where resourceVersions start, by seed modulo their count.
// They start as a fresh etcd's, just below the largest integer a float64
// holds exactly, and past the largest int64. (kube-apiserver parses RVs
// as uint64; the metav1 fuzzer draws them from all of it.)
var rvBases = []uint64{1000, 1<<53 - 16, 1<<63 + 1<<40}

// newObjectGen returns a generator for seed.
func newObjectGen(seed int64) *objectGen {
	g := &objectGen{rnd: rand.New(rand.NewSource(seed)), rv: rvBases[seed%int64(len(rvBases))]}
	funcs := fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, func(runtimeserializer.CodecFactory) []any {
		return []any{g.objectMeta, g.unstructured, g.string}
	})
	g.f = fuzzer.FuzzerFor(funcs, rand.NewSource(seed), scheme.Codecs)
	return g
}

// nextRV returns the next resourceVersion.
func (g *objectGen) nextRV() string {
	g.rv++
	return strconv.FormatUint(g.rv, 10)
}

// objectMeta is the metav1 fuzzer's ObjectMeta func with a servable
// identity: a unique DNS-label name, a DNS-label namespace, a UID and the
// next resourceVersion.
func (g *objectGen) objectMeta(j *metav1.ObjectMeta, c randfill.Continue) {
	c.FillNoCustom(j)
	g.name++
	j.Name = dnsLabel(c, 50) + "-" + strconv.Itoa(g.name)
	j.Namespace = dnsLabel(c, 63)
	j.UID = types.UID(fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", c.Uint32(), c.Intn(1<<16), c.Intn(1<<16), c.Intn(1<<16), c.Int63n(1<<48)))
	j.ResourceVersion = g.nextRV()
	sec, nsec := c.Uint32(), c.Uint32()
	j.CreationTimestamp = metav1.Unix(int64(sec), int64(nsec)).Rfc3339Copy()
	if j.DeletionTimestamp != nil {
		t := metav1.Unix(int64(c.Uint32()), 0).Rfc3339Copy()
		j.DeletionTimestamp = &t
	}
	delete(j.Labels, "")
	delete(j.Annotations, "")
	if len(j.Labels) == 0 {
		j.Labels = nil
	}
	if len(j.Annotations) == 0 {
		j.Annotations = nil
	}
	if len(j.OwnerReferences) == 0 {
		j.OwnerReferences = nil
	}
	if len(j.Finalizers) == 0 {
		j.Finalizers = nil
	}
}

// stringRunes are the ranges random strings draw from:
//   - printable ASCII (quotes, backslashes, braces);
//   - control characters;
//   - Latin and CJK text;
//   - characters JSON or YAML treat specially (line and paragraph
//     separators, NEL, byte-order mark, replacement character);
//   - astral-plane emoji.
var stringRunes = randfill.UnicodeRanges{
	{First: ' ', Last: '~'},
	{First: 0, Last: 0x1f},
	{First: '\u00a0', Last: '\u02af'},
	{First: '\u4e00', Last: '\u9fff'},
	{First: '\u2028', Last: '\u2029'},
	{First: '\u0085', Last: '\u0085'},
	{First: '\ufeff', Last: '\ufeff'},
	{First: '\ufffd', Last: '\ufffd'},
	{First: '\U0001f600', Last: '\U0001f64f'},
}

// string fills a string field with up to 20 runes of stringRunes.
func (g *objectGen) string(s *string, c randfill.Continue) {
	stringRunes.CustomStringFillFunc(20)(s, c)
}

// unstructured fills a custom resource: a Widget with random ObjectMeta
// and random spec and status trees of the values JSON decodes to.
func (g *objectGen) unstructured(u *unstructured.Unstructured, c randfill.Continue) {
	var m metav1.ObjectMeta
	c.Fill(&m)
	md, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&m)
	if err != nil {
		md = map[string]any{"name": m.Name, "namespace": m.Namespace, "resourceVersion": m.ResourceVersion}
	}
	u.Object = map[string]any{"metadata": md, "spec": g.tree(c, 3), "status": g.tree(c, 2)}
	u.SetGroupVersionKind(widgetGVK)
}

// tree returns a JSON object of random members, nested up to depth.
func (g *objectGen) tree(c randfill.Continue, depth int) map[string]any {
	m := map[string]any{}
	for range c.Intn(4) {
		var k string
		g.string(&k, c)
		m[k] = g.value(c, depth-1)
	}
	return m
}

// value returns a random JSON value as unstructured decoding gives it:
// strings, int64s (extremes included), non-integral float64s, booleans,
// null, arrays and objects.
func (g *objectGen) value(c randfill.Continue, depth int) any {
	switch n := c.Intn(9); {
	case n == 0:
		var s string
		g.string(&s, c)
		return s
	case n == 1:
		return c.Int63() - c.Int63()
	case n == 2:
		return []int64{math.MaxInt64, math.MinInt64, 1<<53 + 1, -(1<<53 + 1), 0}[c.Intn(5)]
	case n == 3:
		f := c.NormFloat64() * 1e3
		if f == math.Trunc(f) {
			f += 0.5
		}
		return f
	case n == 4:
		return c.Bool()
	case n == 5:
		return nil
	case n == 6 && depth > 0:
		return g.tree(c, depth)
	case n == 7 && depth > 0:
		s := make([]any, c.Intn(3))
		for i := range s {
			s[i] = g.value(c, depth-1)
		}
		return s
	default:
		return strings.Repeat("x", c.Intn(3))
	}
}

// dnsLabel returns a random DNS label of at most max characters.
func dnsLabel(c randfill.Continue, max int) string {
	const edge, middle = "abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789-"
	b := make([]byte, 1+c.Intn(max))
	for i := range b {
		set := middle
		if i == 0 || i == len(b)-1 {
			set = edge
		}
		b[i] = set[c.Intn(len(set))]
	}
	return string(b)
}

// rtEvent is one change of a generated history.
type rtEvent struct {
	typ watch.EventType
	obj runtime.Object
}

// rtTraffic is what the source serves for one kind: a LIST of the
// initial objects at listRV, then a watch stream of events from listRV.
type rtTraffic struct {
	initial []runtime.Object
	listRV  string
	events  []rtEvent
	final   map[string]runtime.Object // by namespace/name, after the events
}

// traffic fills n objects of kind gvk. The func newObject makes an empty
// one; each is filled and given its kind and apiVersion. Half form the
// listed state. The rest are ADDED by the watch, interleaved with
// MODIFIED and DELETED events. A MODIFIED event is a fresh fill under a
// live object's identity. A DELETED event is a live object's last state
// at a new resourceVersion.
func (g *objectGen) traffic(gvk schema.GroupVersionKind, newObject func() runtime.Object, n int) rtTraffic {
	fill := func() runtime.Object {
		o := newObject()
		g.f.Fill(o)
		o.GetObjectKind().SetGroupVersionKind(gvk)
		return o
	}
	var t rtTraffic
	live := map[string]runtime.Object{}
	var keys []string // live keys, in order of addition
	add := func(o runtime.Object) {
		k := key(o)
		live[k] = o
		keys = append(keys, k)
	}
	for range n / 2 {
		o := fill()
		t.initial = append(t.initial, o)
		add(o)
	}
	t.listRV = strconv.FormatUint(g.rv, 10)
	for added := n / 2; added < n; {
		switch r := g.rnd.Intn(4); {
		case r == 2 && len(keys) > 0:
			old := live[keys[g.rnd.Intn(len(keys))]]
			o := fill()
			om, nm := mustMeta(old), mustMeta(o)
			nm.SetName(om.GetName())
			nm.SetNamespace(om.GetNamespace())
			nm.SetUID(om.GetUID())
			live[key(o)] = o
			t.events = append(t.events, rtEvent{watch.Modified, o})
		case r == 3 && len(keys) > 0:
			i := g.rnd.Intn(len(keys))
			o := live[keys[i]].DeepCopyObject()
			mustMeta(o).SetResourceVersion(g.nextRV())
			delete(live, keys[i])
			keys = append(keys[:i], keys[i+1:]...)
			t.events = append(t.events, rtEvent{watch.Deleted, o})
		default:
			o := fill()
			add(o)
			t.events = append(t.events, rtEvent{watch.Added, o})
			added++
		}
	}
	t.final = live
	return t
}

// key is an object's namespace/name.
func key(o runtime.Object) string {
	m := mustMeta(o)
	return m.GetNamespace() + "/" + m.GetName()
}

// mustMeta returns o's metadata; every object here has some.
func mustMeta(o runtime.Object) metav1.Object {
	m, err := meta.Accessor(o)
	if err != nil {
		panic(fmt.Sprintf("object %T without metadata: %v", o, err)) // test code: a bug in this file
	}
	return m
}
