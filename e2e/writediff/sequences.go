package writediff

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Manifests the sequences send.
const (
	cmA        = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v1"}}`
	cmGen      = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"gen-"},"data":{"k":"v1"}}`
	cmWithRV   = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"rv","resourceVersion":"1"},"data":{"k":"v1"}}`
	cmKeep     = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"keep","finalizers":["example.com/keep"]},"data":{"k":"v1"}}`
	widgetW    = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1}}`
	widgetStat = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"s"},"spec":{"size":1},"status":{"phase":"created"}}`
	deployWeb  = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":1,` +
		`"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},` +
		`"spec":{"containers":[{"name":"a","image":"busybox:1"},{"name":"b","image":"busybox:1"}]}}}}`
	applyA = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ap"},"data":{"k":"from-a"}}`
	applyB = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ap"},"data":{"k":"from-b"}}`
	kcObj  = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kc\ndata:\n  k: v1\n"
	kcOld  = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kc\n  resourceVersion: \"{staleRV}\"\ndata:\n  k: stale\n"
	kcA    = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ks\ndata:\n  k: from-a\n"
	kcB    = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ks\ndata:\n  k: from-b\n"
	kcDry  = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\n"
)

// cm is a client step on configmaps.
func cm(name string, via Via, verb Verb, target, body string) Step {
	return Step{Name: name, Via: via, Verb: verb, Resource: "configmaps", Target: target, Body: body, Show: []string{"data"}}
}

// patch is a patch step on configmaps.
func patch(name string, via Via, pt types.PatchType, target, body string) Step {
	return with(cm(name, via, Patch, target, body), func(s *Step) { s.PatchType = pt })
}

// on sets a step's resource and Show paths.
func on(s Step, res string, show ...string) Step {
	s.Resource, s.Show = res, show
	return s
}

// with returns s changed by fn.
func with(s Step, fn func(*Step)) Step {
	fn(&s)
	return s
}

// kubectl is a kubectl step reading stdin, whose stored Target is a
// configmap.
func kubectl(name, target, stdin string, args ...string) Step {
	return Step{Name: name, Via: Kubectl, Resource: "configmaps", Target: target, Stdin: stdin, Args: args, Show: []string{"data"}}
}

// Sequences returns the scripted write sequences the harness runs.
func Sequences() []Sequence {
	merge, strategic, jsonPatch := types.MergePatchType, types.StrategicMergePatchType, types.JSONPatchType
	return []Sequence{
		{Name: "create-get", Steps: []Step{
			cm("create", Dynamic, Create, "a", cmA),
			cm("get", Dynamic, Get, "a", ""),
			cm("get protobuf", Typed, Get, "a", ""),
			cm("get missing", Dynamic, Get, "missing", ""),
		}},
		{Name: "create-generatename", Steps: []Step{
			cm("create generateName", Dynamic, Create, "", cmGen),
			cm("create generateName protobuf", Typed, Create, "", cmGen),
		}},
		{Name: "create-exists", Steps: []Step{
			cm("create", Dynamic, Create, "a", cmA),
			cm("create again", Dynamic, Create, "a", cmA),
			cm("create again protobuf", Typed, Create, "a", cmA),
		}},
		{Name: "create-with-rv", Steps: []Step{
			cm("create with resourceVersion", Dynamic, Create, "rv", cmWithRV),
			cm("create with resourceVersion protobuf", Typed, Create, "rv", cmWithRV),
		}},
		{Name: "update", Steps: []Step{
			cm("create", Dynamic, Create, "a", cmA),
			cm("update stored RV", Dynamic, Update, "a", `{"data":{"k":"v2"}}`),
			with(cm("update stale RV", Dynamic, Update, "a", `{"data":{"k":"v3"}}`), func(s *Step) { s.RV = RVStale }),
			with(cm("update stale RV protobuf", Typed, Update, "a", `{"data":{"k":"v3"}}`), func(s *Step) { s.RV = RVStale }),
			with(cm("update without RV", Dynamic, Update, "a", `{"data":{"k":"v4"}}`), func(s *Step) { s.RV = RVNone }),
			cm("update changing nothing", Dynamic, Update, "a", `{}`),
			cm("update changing nothing protobuf", Typed, Update, "a", `{}`),
			cm("update missing", Dynamic, Update, "missing", `{"data":{"k":"v1"}}`),
		}},
		{Name: "update-widget", Watch: "widgets", Steps: []Step{
			on(cm("create", Dynamic, Create, "w", widgetW), "widgets", "spec"),
			on(with(cm("update without RV", Dynamic, Update, "w", `{"spec":{"size":2}}`), func(s *Step) { s.RV = RVNone }), "widgets", "spec"),
			on(cm("update stored RV", Dynamic, Update, "w", `{"spec":{"size":2}}`), "widgets", "spec"),
			on(cm("update changing nothing", Dynamic, Update, "w", `{}`), "widgets", "spec"),
		}},
		{Name: "patch", Steps: []Step{
			cm("create", Dynamic, Create, "a", cmA),
			patch("merge patch", Dynamic, merge, "a", `{"data":{"m":"merged"}}`),
			patch("merge patch removing a key", Dynamic, merge, "a", `{"data":{"m":null}}`),
			patch("strategic merge patch", Dynamic, strategic, "a", `{"data":{"s":"strategic"}}`),
			patch("strategic merge patch protobuf", Typed, strategic, "a", `{"data":{"t":"typed"}}`),
			patch("json patch", Dynamic, jsonPatch, "a", `[{"op":"add","path":"/data/j","value":"json"}]`),
			patch("json patch failing test", Dynamic, jsonPatch, "a", `[{"op":"test","path":"/data/k","value":"nope"},{"op":"remove","path":"/data/k"}]`),
			patch("merge patch changing nothing", Dynamic, merge, "a", `{"data":{"k":"v1"}}`),
			patch("merge patch missing", Dynamic, merge, "missing", `{"data":{"k":"v1"}}`),
			patch("json patch malformed", Dynamic, jsonPatch, "a", `{"op":"add"}`),
			patch("json patch replacing the root with no value", Dynamic, jsonPatch, "a", `[{"op":"replace","path":""}]`),
		}},
		{Name: "patch-deployment", Watch: "deployments", Steps: []Step{
			on(cm("create protobuf", Typed, Create, "web", deployWeb), "deployments", "spec.template.spec.containers"),
			on(patch("strategic patch containers by name protobuf", Typed, strategic, "web",
				`{"spec":{"template":{"spec":{"containers":[{"name":"b","image":"busybox:2"}]}}}}`), "deployments", "spec.template.spec.containers"),
			on(patch("merge patch containers (list replaced)", Dynamic, merge, "web",
				`{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox:3"}]}}}}`), "deployments", "spec.template.spec.containers"),
			on(patch("strategic patch deleting container c", Dynamic, strategic, "web",
				`{"spec":{"template":{"spec":{"containers":[{"name":"c","$patch":"delete"},{"name":"d","image":"busybox:4"}]}}}}`), "deployments", "spec.template.spec.containers"),
		}},
		{Name: "apply", Steps: []Step{
			with(cm("apply by A creating", Dynamic, Apply, "ap", applyA), func(s *Step) { s.Manager = "manager-a" }),
			with(cm("apply by A again", Dynamic, Apply, "ap", applyA), func(s *Step) { s.Manager = "manager-a" }),
			with(cm("apply by B conflicting", Dynamic, Apply, "ap", applyB), func(s *Step) { s.Manager = "manager-b" }),
			with(cm("apply by B forced", Dynamic, Apply, "ap", applyB), func(s *Step) { s.Manager = "manager-b"; s.Force = true }),
			with(cm("apply by A conflicting protobuf", Typed, Apply, "ap", applyA), func(s *Step) { s.Manager = "manager-a" }),
			with(cm("apply without manager", Dynamic, Apply, "ap", applyA), func(s *Step) { s.Manager = "" }),
			with(cm("update by C", Dynamic, Update, "ap", `{"data":{"c":"from-c"}}`), func(s *Step) { s.Manager = "manager-c" }),
		}},
		statusSequence(),
		{Name: "delete-finalizer", Steps: []Step{
			cm("create with finalizer", Dynamic, Create, "keep", cmKeep),
			cm("delete", Dynamic, Delete, "keep", ""),
			cm("delete again", Dynamic, Delete, "keep", ""),
			cm("update data while deleting", Dynamic, Update, "keep", `{"data":{"k":"v2"}}`),
			cm("update removing the finalizer", Dynamic, Update, "keep", `{"metadata":{"finalizers":null}}`),
			cm("get", Dynamic, Get, "keep", ""),
			cm("delete missing", Dynamic, Delete, "keep", ""),
		}},
		{Name: "delete-options", Steps: []Step{
			cm("create", Dynamic, Create, "a", cmA),
			with(cm("delete with wrong uid", Dynamic, Delete, "a", ""), func(s *Step) { s.UID = "00000000-0000-0000-0000-000000000000" }),
			with(cm("delete foreground", Dynamic, Delete, "a", ""), func(s *Step) { s.Propagation = metav1.DeletePropagationForeground }),
			cm("create b protobuf", Typed, Create, "b", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`),
			cm("delete protobuf", Typed, Delete, "b", ""),
		}},
		{Name: "dry-run", Steps: []Step{
			with(cm("create dry run", Dynamic, Create, "a", cmA), func(s *Step) { s.DryRun = true }),
			cm("create", Dynamic, Create, "a", cmA),
			with(cm("update dry run", Dynamic, Update, "a", `{"data":{"k":"dry"}}`), func(s *Step) { s.DryRun = true }),
			with(patch("patch dry run", Dynamic, merge, "a", `{"data":{"k":"dry"}}`), func(s *Step) { s.DryRun = true }),
			with(cm("delete dry run", Dynamic, Delete, "a", ""), func(s *Step) { s.DryRun = true }),
			with(cm("create dry run protobuf", Typed, Create, "b", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`), func(s *Step) { s.DryRun = true }),
			cm("get", Dynamic, Get, "a", ""),
		}},
		kubectlSequence(),
		deleteCollectionSequence(),
		scaleSequence(),
	}
}

// Manifests of the delete-collection sequence: three configmaps labelled
// app=x, one of them held by a finalizer, and one labelled app=y.
const (
	cmXa    = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"app":"x"}},"data":{"k":"v1"}}`
	cmXkeep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"keep","labels":{"app":"x"},"finalizers":["example.com/keep"]}}`
	cmXc    = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"app":"x"}}}`
	cmYd    = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","labels":{"app":"y"}},"data":{"k":"v1"}}`
	cmZe    = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"e","labels":{"app":"z"}}}`
	cmZf    = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"f","labels":{"app":"z"}}}`
)

// deleteCollectionSequence deletes configmaps by label and field
// selector. It has a dry run, a finalizer-held object among those
// deleted, a second delete of it, and protobuf. It has the selectors
// kube-apiserver refuses, and a resourceVersion precondition only the
// first object selected meets.
func deleteCollectionSequence() Sequence {
	coll := func(name string, via Via, selector, target string) Step {
		return Step{Name: name, Via: via, Verb: DeleteCollection, Resource: "configmaps", Selector: selector, Target: target}
	}
	return Sequence{Name: "delete-collection", Steps: []Step{
		cm("create a", Dynamic, Create, "a", cmXa),
		cm("create keep with finalizer", Dynamic, Create, "keep", cmXkeep),
		cm("create c", Dynamic, Create, "c", cmXc),
		cm("create d", Dynamic, Create, "d", cmYd),
		with(coll("delete collection app=x dry run", Dynamic, "app=x", "a"), func(s *Step) { s.DryRun = true }),
		coll("delete collection app=x", Dynamic, "app=x", "keep"),
		cm("get a", Dynamic, Get, "a", ""),
		cm("get d", Dynamic, Get, "d", ""),
		coll("delete collection app=x again", Dynamic, "app=x", "keep"),
		with(coll("delete collection by name protobuf", Typed, "", "d"), func(s *Step) { s.FieldSelector = "metadata.name=d" }),
		coll("delete collection bad label selector", Dynamic, "app===x", ""),
		with(coll("delete collection unknown field", Dynamic, "", ""), func(s *Step) { s.FieldSelector = "data.k=v1" }),
		cm("update removing the finalizer", Dynamic, Update, "keep", `{"metadata":{"finalizers":null}}`),
		cm("create e", Dynamic, Create, "e", cmZe),
		cm("create f", Dynamic, Create, "f", cmZf),
		// one delete worker: e goes, f's precondition fails, the 409 is the answer
		with(coll("delete collection app=z with e's resourceVersion", Dynamic, "app=z", "e"), func(s *Step) { s.TargetRV = true }),
		cm("get f", Dynamic, Get, "f", ""),
	}}
}

// scaleApply is a server-side apply of a Scale.
const scaleApply = `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":8}}`

// scaleSequence reads and writes a deployment's scale subresource; no
// controller-manager runs, so status.replicas stays 0. It has an update,
// and one with a stale resourceVersion. It has merge patches: one
// changing nothing, one invalid, a dry run. It has protobuf, an apply
// conflicting with the scale writer, and kubectl scale. It reads the
// deployment's managedFields after.
func scaleSequence() Sequence {
	sc := func(s Step) Step {
		s.Subresource = "scale"
		return on(s, "deployments", "spec.replicas", "status.replicas", "status.selector")
	}
	merge := types.MergePatchType
	return Sequence{Name: "scale", Watch: "deployments", Steps: []Step{
		on(cm("create deployment", Dynamic, Create, "web", deployWeb), "deployments", "spec.replicas"),
		sc(cm("get scale", Dynamic, Get, "web", "")),
		sc(cm("update scale", Dynamic, Update, "web", `{"spec":{"replicas":2}}`)),
		sc(with(cm("update scale stale RV", Dynamic, Update, "web", `{"spec":{"replicas":3}}`), func(s *Step) { s.RV = RVStale })),
		sc(patch("merge patch scale", Dynamic, merge, "web", `{"spec":{"replicas":4}}`)),
		sc(patch("merge patch scale changing nothing", Dynamic, merge, "web", `{"spec":{"replicas":4}}`)),
		sc(patch("merge patch scale negative", Dynamic, merge, "web", `{"spec":{"replicas":-1}}`)),
		sc(with(patch("merge patch scale dry run", Dynamic, merge, "web", `{"spec":{"replicas":9}}`), func(s *Step) { s.DryRun = true })),
		sc(cm("get scale protobuf", Typed, Get, "web", "")),
		sc(cm("update scale protobuf", Typed, Update, "web", `{"spec":{"replicas":5}}`)),
		sc(with(cm("apply scale by hpa", Dynamic, Apply, "web", scaleApply), func(s *Step) { s.Manager = "hpa" })),
		on(kubectl("kubectl scale", "web", "", "scale", "deployment", "web", "--replicas=6"), "deployments", "spec.replicas"),
		on(cm("get deployment", Dynamic, Get, "web", ""), "deployments", "spec.replicas"),
		sc(cm("get scale missing", Dynamic, Get, "missing", "")),
		with(sc(cm("get scale of a configmap", Dynamic, Get, "a", "")), func(s *Step) { s.Resource = "configmaps" }),
	}}
}

// statusSequence updates spec and status of a deployment and a widget
// through the main resource and the status subresource.
func statusSequence() Sequence {
	st := func(s Step) Step { s.Subresource = "status"; return s }
	dep := func(s Step) Step { return on(s, "deployments", "spec.replicas", "status.observedGeneration") }
	wid := func(s Step) Step { return on(s, "widgets", "spec", "status") }
	return Sequence{Name: "status", Watch: "widgets", Steps: []Step{
		dep(cm("create deployment", Dynamic, Create, "web", deployWeb)),
		dep(cm("update spec and status via main resource", Dynamic, Update, "web", `{"spec":{"replicas":2},"status":{"observedGeneration":7}}`)),
		dep(st(cm("update status via /status", Dynamic, Update, "web", `{"spec":{"replicas":3},"status":{"observedGeneration":1}}`))),
		dep(st(cm("get /status", Dynamic, Get, "web", ""))),
		wid(cm("create widget with status", Dynamic, Create, "s", widgetStat)),
		wid(cm("update widget spec and status via main resource", Dynamic, Update, "s", `{"spec":{"size":2},"status":{"phase":"main"}}`)),
		wid(st(cm("update widget status via /status", Dynamic, Update, "s", `{"spec":{"size":3},"status":{"phase":"status"}}`))),
		wid(cm("update widget metadata only", Dynamic, Update, "s", `{"metadata":{"labels":{"x":"y"}}}`)),
		wid(st(patch("merge patch widget /status", Dynamic, types.MergePatchType, "s", `{"status":{"phase":"patched"}}`))),
	}}
}

// kubectlSequence is kubectl's writes on configmaps.
func kubectlSequence() Sequence {
	return Sequence{Name: "kubectl", Steps: []Step{
		kubectl("create", "kc", kcObj, "create", "--validate=false", "-f", "-"),
		kubectl("patch merge", "kc", "", "patch", "configmap", "kc", "--type=merge", "-p", `{"data":{"m":"merged"}}`),
		kubectl("replace stale", "kc", kcOld, "replace", "--validate=false", "-f", "-"),
		kubectl("patch strategic", "kc", "", "patch", "configmap", "kc", "--type=strategic", "-p", `{"data":{"s":"strategic"}}`),
		kubectl("patch json", "kc", "", "patch", "configmap", "kc", "--type=json", "-p", `[{"op":"add","path":"/data/j","value":"json"}]`),
		kubectl("patch json failing test", "kc", "", "patch", "configmap", "kc", "--type=json", "-p", `[{"op":"test","path":"/data/k","value":"nope"}]`),
		kubectl("apply server-side by a", "ks", kcA, "apply", "--server-side", "--validate=false", "--field-manager=a", "-f", "-"),
		kubectl("apply server-side by b", "ks", kcB, "apply", "--server-side", "--validate=false", "--field-manager=b", "-f", "-"),
		kubectl("apply server-side by b forced", "ks", kcB, "apply", "--server-side", "--validate=false", "--field-manager=b", "--force-conflicts", "-f", "-"),
		kubectl("create dry-run=server", "dry", kcDry, "create", "--dry-run=server", "--validate=false", "-f", "-"),
		kubectl("create again", "kc", kcObj, "create", "--validate=false", "-f", "-"),
		kubectl("delete", "kc", "", "delete", "configmap", "kc"),
		kubectl("delete missing", "kc", "", "delete", "configmap", "kc"),
	}}
}
