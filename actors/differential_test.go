package actors_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/actors"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/internal/cluster"
	"github.com/lwreplay/lwreplay/internal/differential"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

// params are the scripts' parameters on both sides: the kubelet
// stand-in's failure annotation fails the Job's first pod.
var params = differential.Params{FailAnnotation: [2]string{actors.ExitCodeAnnotation, "1"}}

// realFlags are kube-apiserver's flags on the real side: without the
// admission plugins whose marks only kube-controller-manager controllers
// that are no actors remove: TaintNodesByCondition's not-ready taint on a
// new node (node-lifecycle), StorageObjectInUseProtection's finalizers on
// claims and volumes (pvc-protection, pv-protection).
var realFlags = []string{"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition,StorageObjectInUseProtection"}

// quietPolls is how many polls (Params.Poll apart) must see no new event
// before a side's recording ends.
const quietPolls = 30

// TestDifferential runs differential.Scripts on a real cluster:
// kube-apiserver, kube-controller-manager 1.37.2 and the node actors. It
// runs them in a replay with the actors too, of a history holding only
// namespace "default". It compares per kind each object's normalized
// lifecycle and final state. Every difference must be a known one
// (knownDifferences, listed with its reason in docs/replayer.md).
func TestDifferential(t *testing.T) {
	cluster.SkipShort(t)
	start := time.Now()
	real := realSide(t)
	realTime := time.Since(start)
	start = time.Now()
	replay := replaySide(t)
	replayTime := time.Since(start)
	t.Logf("real cluster: %d events in %v; replay: %d events in %v (wall clock)",
		len(real), realTime.Round(time.Millisecond), len(replay), replayTime.Round(time.Millisecond))
	diffs := differential.Compare(differential.Lifecycles(real), differential.Lifecycles(replay))
	explained, unexplained := differential.Explain(diffs, knownDifferences)
	for _, s := range differential.Scripts() {
		t.Logf("script %s: %s", s.Name, verdict(s.Name, diffs))
	}
	for _, reason := range slices.Sorted(maps.Keys(explained)) {
		t.Logf("known difference (%s): %d objects, e.g. %s", reason, len(explained[reason]), explained[reason][0])
	}
	for _, d := range unexplained {
		t.Errorf("differential - %s - pass: got %s, want the same on both sides", d.Key.Script(), d)
	}
}

// verdict says whether script's objects are the same on both sides.
func verdict(script string, diffs []differential.Difference) string {
	n := 0
	for _, d := range diffs {
		if d.Key.Script() == script {
			n++
		}
	}
	if n == 0 {
		return "same"
	}
	return fmt.Sprintf("%d objects differ", n)
}

// realSide runs the scripts on a real cluster and returns its events.
func realSide(t *testing.T) []differential.Event {
	c := cluster.StartT(t, cluster.WithExtraFlags(realFlags...))
	if err := c.StartControllerManager(t.Context()); err != nil {
		cluster.Skip(t, err)
		t.Fatalf("kube-controller-manager: got error %v, want it running", err)
	}
	stop := startActors(t, actors.NodeActors(), func(name string) *rest.Config {
		cfg := c.RestConfig()
		cfg.UserAgent = actor.UserAgent(name)
		return cfg
	})
	defer stop()
	events, fs, err := runScripts(t.Context(), "real", c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	report(t, fs)
	return events
}

// replaySide runs the scripts in a replay with the actors, in a bubble,
// and returns its events.
func replaySide(t *testing.T) []differential.Event {
	kcm, err := actors.KubeControllerManager()
	if err != nil {
		t.Fatalf("kube-controller-manager actor: got error %v, want none", err)
	}
	acts := append([]actor.Actor{kcm}, actors.NodeActors()...)
	var events []differential.Event
	var fs []failure
	var runErr error
	// client-go's error handlers rate-limit process-wide from the last
	// error's time. One the real side handled (today) makes a handler in
	// the bubble (year 2000) sleep decades. The harness quiets them too
	restore := harness.QuietClientGo()
	defer restore()
	synctest.Test(t, func(t *testing.T) {
		b := synth.NewBuilder()
		b.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
		b.Snapshot()
		h, err := b.History()
		if err != nil {
			t.Fatalf("history: got error %v, want none", err)
		}
		srv := replayer.New(h, replayOptions(acts)...)
		stop := startActors(t, acts, func(name string) *rest.Config {
			return &rest.Config{Host: "http://replay", Transport: srv.TransportAs(name), UserAgent: actor.UserAgent(name), QPS: -1}
		})
		events, fs, runErr = runScripts(t.Context(), "replay", &rest.Config{Host: "http://replay", Transport: srv.Transport(), QPS: -1})
		stop()
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	report(t, fs)
	return events
}

// replayOptions are the replay's options for acts, as lwreplay serve
// --actors sets them. They turn off the collector model when one
// collects. They add graceful pod deletion with a kubelet, and
// kube-apiserver's defaulting.
func replayOptions(acts []actor.Actor) []replayer.Option {
	opts := []replayer.Option{replayer.WithDefaulter(actors.Defaults())}
	if actor.Collects(acts) {
		opts = append(opts, replayer.WithoutGC())
	}
	if actor.Kubelets(acts) {
		opts = append(opts, replayer.WithGracefulDeletion())
	}
	return opts
}

// startActors runs each actor with the config cfg gives for its name. It
// returns a function that stops them, waits for them, and fails t for an
// actor that could not start.
func startActors(t *testing.T, acts []actor.Actor, cfg func(name string) *rest.Config) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []string
	for _, a := range acts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := a.Run(ctx, actor.Env{Config: cfg(a.Name)}); err != nil {
				mu.Lock()
				errs = append(errs, a.Name+": "+err.Error())
				mu.Unlock()
			}
		}()
	}
	return func() {
		cancel()
		wg.Wait()
		if len(errs) > 0 {
			t.Errorf("actors: got errors %s, want none", strings.Join(errs, "; "))
		}
	}
}

// runScripts records the scripts' objects through cfg while it runs every
// script in turn. Then it waits for the cluster to be quiet. It returns
// the events, and what failed (a script, a wait): TestDifferential
// reports them, outside any bubble.
func runScripts(ctx context.Context, side string, cfg *rest.Config) (events []differential.Event, failures []failure, err error) {
	rec, err := differential.StartRecorder(ctx, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: recorder: %w", side, err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range differential.Scripts() {
		start := time.Now()
		if err := s.Run(ctx, cs, params); err != nil {
			failures = append(failures, failure{side: side, script: s.Name,
				err: fmt.Errorf("%w; its pods and the nodes:\n%s", err, podsAndNodes(ctx, cs, s.Namespace()))})
		}
		failures = append(failures, failure{side: side, script: s.Name, took: time.Since(start)})
	}
	if err := differential.WaitQuiet(ctx, rec, params, quietPolls); err != nil {
		failures = append(failures, failure{side: side, err: fmt.Errorf("cluster never quiet: %w", err)})
	}
	return rec.Stop(), failures, nil
}

// failure is a script's outcome on one side: its error, or (err nil) how
// long it took.
type failure struct {
	side, script string
	err          error
	took         time.Duration
}

// report logs each script's time and fails t for each error, unless
// knownFailures lists it.
func report(t *testing.T, fs []failure) {
	t.Helper()
	for _, f := range fs {
		switch reason, known := knownFailures[f.side+"/"+f.script]; {
		case f.err == nil:
			t.Logf("%s: script %s: %v", f.side, f.script, f.took.Round(time.Millisecond))
		case known:
			t.Logf("%s: script %s fails, a known difference (%s): %v", f.side, f.script, reason, f.err)
		default:
			t.Errorf("%s: script %s: got error %v, want none", f.side, f.script, f.err)
		}
	}
}

// podsAndNodes describes ns's pods and the nodes, for a script's failure.
func podsAndNodes(ctx context.Context, cs kubernetes.Interface, ns string) string {
	var b strings.Builder
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	for _, p := range pods.Items {
		fmt.Fprintf(&b, "  pod %s: phase %s node %q gates %d deleting %t conditions %v\n", p.Name, p.Status.Phase,
			p.Spec.NodeName, len(p.Spec.SchedulingGates), p.DeletionTimestamp != nil, p.Status.Conditions)
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return b.String() + err.Error()
	}
	for _, n := range nodes.Items {
		fmt.Fprintf(&b, "  node %s: taints %v conditions %d\n", n.Name, n.Spec.Taints, len(n.Status.Conditions))
	}
	return b.String()
}
