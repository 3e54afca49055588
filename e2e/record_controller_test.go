package e2e

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/examples/children"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/cluster"
	"github.com/lwreplay/lwreplay/recorder"
)

// controllerFixture is the children controller's recording that
// examples/children replays to the controller (TestReplayRecorded).
var controllerFixture = filepath.Join("..", "examples", "children", "testdata", "recorded.yaml")

// controllerNS is the namespace of the recorded scenario.
const controllerNS = "children-recorded"

// actorPause spaces the other actor's changes. So each comes at a time of
// its own in the recording, after the controller answered the one before.
const actorPause = time.Second

// TestRecordController records the children controller (examples/children,
// one namespace, its informer and writes through recorder.Wrap) against a
// real kube-apiserver. Meanwhile another actor, a client of its own,
// changes the controller's world. It changes a parent's data, adds a
// parent, and deletes one. It changes a child's data, at a key the
// controller does not write. Under -update the recording becomes the
// fixture. Otherwise the fresh recording must have the fixture's shape, so
// that the fixture stays what kube-apiserver records. The shape is the
// same writes by verb, key and whether they stored, and the same
// other-actor events by type and key, in order.
func TestRecordController(t *testing.T) {
	c := cluster.StartT(t)
	fresh := recordController(t, c, filepath.Join(t.TempDir(), "recorded.yaml"))
	got := shapeOf(t, fresh)
	t.Logf("recorded %d interactions; shape:\n%s", got.interactions, got)
	if *update {
		data, err := os.ReadFile(fresh)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(controllerFixture), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(controllerFixture, data, 0o644); err != nil {
			t.Fatalf("write the fixture: got error %v, want none", err)
		}
		t.Logf("wrote %s (%d bytes)", controllerFixture, len(data))
		return
	}
	want := shapeOf(t, controllerFixture)
	for _, tc := range []struct {
		name      string
		got, want []string
	}{
		{"writes by verb, key and outcome", got.writes, want.writes},
		{"other-actor events by type and key, in order", got.others, want.others},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("fresh recording beside %s: %s: got %q, want %q (run with -update if kube-apiserver changed)", controllerFixture, tc.name, tc.got, tc.want)
		}
	}
}

// recordController runs the scenario on c, recording the controller into
// out, and returns out.
func recordController(t *testing.T, c *cluster.Cluster, out string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*waitLimit)
	defer cancel()
	actorCfg := c.RestConfig()
	actorCfg.UserAgent = "other-actor"
	actor, err := kubernetes.NewForConfig(actorCfg)
	if err != nil {
		t.Fatal(err)
	}
	cms := actor.CoreV1().ConfigMaps(controllerNS)
	if err := ensureNamespaces(ctx, actor, controllerNS); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"p1", "p2", "p3"} {
		if _, err := cms.Create(ctx, parentConfigMap(name), metav1.CreateOptions{}); err != nil {
			t.Fatalf("create parent %s: got error %v, want none", name, err)
		}
	}

	rec, err := recorder.New(out, recorder.WithFlushInterval(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.RestConfig()
	cfg.UserAgent = "children-controller"
	cfg.Wrap(rec.Wrap)
	ccs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctrl := children.New(ccs, children.WithNamespace(controllerNS))
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(runCtx) }()
	stopped := false
	halt := func() {
		if !stopped {
			stopped = true
			stop()
			<-done
		}
	}
	defer halt()

	converged(t, ctx, cms, "p1", "p2", "p3")
	steps := []struct {
		what string
		do   func() error
		seen func(*corev1.ConfigMap, bool) bool // the controller's informer has it
		key  string
		then []string // the parents after it, each to converge
	}{
		{what: "change p1's data", key: "p1",
			do:   func() error { return updateData(ctx, cms, "p1", "v", "2") },
			seen: func(cm *corev1.ConfigMap, ok bool) bool { return ok && cm.Data["v"] == "2" }, then: []string{"p1", "p2", "p3"}},
		{what: "add the parent p4", key: "p4",
			do: func() error {
				_, err := cms.Create(ctx, parentConfigMap("p4"), metav1.CreateOptions{})
				return err
			},
			seen: func(_ *corev1.ConfigMap, ok bool) bool { return ok }, then: []string{"p1", "p2", "p3", "p4"}},
		{what: "delete the parent p3", key: "p3",
			do:   func() error { return cms.Delete(ctx, "p3", metav1.DeleteOptions{}) },
			seen: func(_ *corev1.ConfigMap, ok bool) bool { return !ok }, then: []string{"p1", "p2", "p4"}},
		{what: "change p2's child's data", key: "p2-child",
			do:   func() error { return updateData(ctx, cms, "p2-child", "note", "the other actor's") },
			seen: func(cm *corev1.ConfigMap, ok bool) bool { return ok && cm.Data["note"] != "" }, then: []string{"p1", "p2", "p4"}},
	}
	for _, s := range steps {
		time.Sleep(actorPause)
		if err := s.do(); err != nil {
			t.Fatalf("other actor: %s: got error %v, want none", s.what, err)
		}
		waitFor(t, "the controller's informer sees the other actor "+s.what, func() (bool, string) {
			obj, ok, err := ctrl.Informer().GetStore().GetByKey(controllerNS + "/" + s.key)
			cm, _ := obj.(*corev1.ConfigMap)
			return err == nil && s.seen(cm, ok), fmt.Sprintf("%s in its store: %v, error %v", s.key, ok, err)
		})
		converged(t, ctx, cms, s.then...)
	}
	time.Sleep(actorPause)
	halt()
	if errs := ctrl.Errors(); len(errs) > 0 {
		t.Errorf("controller: got reconcile errors %v, want none", errs)
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("recorder Close: got error %v, want none", err)
	}
	if st := rec.Stats(); st.DroppedBodies > 0 {
		t.Errorf("recorder: got %d dropped bodies, want none", st.DroppedBodies)
	}
	return out
}

// parentConfigMap is the scenario's parent configmap name, as the other
// actor creates it.
func parentConfigMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: controllerNS, Name: name}, Data: map[string]string{"v": "1"}}
}

// updateData sets the data key k of the configmap name to v.
func updateData(ctx context.Context, cms interface {
	Get(context.Context, string, metav1.GetOptions) (*corev1.ConfigMap, error)
	Update(context.Context, *corev1.ConfigMap, metav1.UpdateOptions) (*corev1.ConfigMap, error)
}, name, k, v string) error {
	cm, err := cms.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[k] = v
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// converged waits until kube-apiserver holds, for each of the parents (all
// there are), its child and the controller's annotations, and no other
// child.
func converged(t *testing.T, ctx context.Context, cms interface {
	List(context.Context, metav1.ListOptions) (*corev1.ConfigMapList, error)
}, parents ...string) {
	t.Helper()
	waitFor(t, "the controller converged on "+strings.Join(parents, ", "), func() (bool, string) {
		l, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		have := map[string]corev1.ConfigMap{}
		for _, cm := range l.Items {
			have[cm.Name] = cm
		}
		var want []string
		for _, p := range parents {
			if _, ok := have[p+"-child"]; !ok {
				want = append(want, "child "+p+"-child")
			}
			if have[p].Annotations[children.ChildAnnotation] != p+"-child" || have[p].Annotations[children.ReconciledAnnotation] != "true" {
				want = append(want, "annotations on "+p)
			}
		}
		for name, cm := range have {
			if cm.Labels[children.ChildLabel] != "" && !slices.Contains(parents, strings.TrimSuffix(name, "-child")) {
				want = append(want, "no "+name)
			}
		}
		return len(want) == 0, fmt.Sprintf("got %q, want also %q", slices.Sorted(maps.Keys(have)), want)
	})
}

// recordingShape is what TestRecordController compares of two recordings
// of the scenario.
type recordingShape struct {
	interactions int
	writes       []string // "verb key stored|refused", sorted, once each
	others       []string // the other actors' events, "TYPE key", in order, after "initial key"s
}

// String is the shape, a line each.
func (s recordingShape) String() string {
	return "writes:\n  " + strings.Join(s.writes, "\n  ") + "\nother actors:\n  " + strings.Join(s.others, "\n  ")
}

// shapeOf loads the recording at path and returns its shape. It fails t
// unless it holds the configmaps' LIST or watch traffic with timing,
// and the controller's writes with their request bodies.
func shapeOf(t *testing.T, path string) recordingShape {
	t.Helper()
	files, h, err := loadHistory(path)
	if err != nil {
		t.Fatalf("%s: got error %v, want a recording", path, err)
	}
	var s recordingShape
	byPath := map[string]*cassette.File{}
	for _, f := range files {
		byPath[f.Path] = f
		s.interactions += len(f.Interactions)
	}
	l, ok := logOf(h, "configmaps")
	if !ok || l.Lists+l.Watches == 0 {
		t.Fatalf("%s: got no configmaps LIST or watch, want the controller's informer's", path)
	}
	if len(h.Writes) == 0 {
		t.Fatalf("%s: got no writes, want the controller's", path)
	}
	seen := map[string]bool{}
	for _, w := range h.Writes {
		it := byPath[w.From.File].Interactions[w.From.Interaction]
		if (it.Method == http.MethodPost || it.Method == http.MethodPut) && len(it.RequestBody) == 0 {
			t.Errorf("%s: %s: got no request body, want the body the controller sent", path, w)
		}
		if w.At < 0 {
			t.Errorf("%s: %s: got no timing, want when it was sent", path, w)
		}
		outcome := "refused"
		if w.Stored() {
			outcome = "stored"
		}
		if line := w.Verb + " " + w.Key + " " + outcome; !seen[line] {
			seen[line] = true
			s.writes = append(s.writes, line)
		}
	}
	slices.Sort(s.writes)
	others, err := history.WithoutOwn(h, nil)
	if err != nil {
		t.Fatalf("%s: WithoutOwn: got error %v, want the other actors' history", path, err)
	}
	ol, _ := logOf(others, "configmaps")
	for _, o := range ol.Initial {
		s.others = append(s.others, "initial "+o.Key())
	}
	for _, e := range ol.Events {
		if e.At < 0 {
			t.Errorf("%s: %s %s: got no timing, want when it arrived", path, e.Type, e.Object.Key())
		}
		s.others = append(s.others, string(e.Type)+" "+e.Object.Key())
	}
	return s
}
