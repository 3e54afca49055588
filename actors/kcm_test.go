package actors_test

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"os"
	"runtime"
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
	"k8s.io/klog/v2"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/actors"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

// ns is the namespace the tests' objects live in.
const ns = "default"

// settle is how long (virtual time) a check waits for the controllers.
const settle = 2 * time.Minute

// kcmCase is one run of a kube-controller-manager actor: what the test
// does through its own client, and what it then must see.
type kcmCase struct {
	name        string
	controllers []string // none: every controller
	clients     []string // kube-controller-manager's clients whose requests must be seen (by User-Agent)
	act         func(ctx context.Context, c kubernetes.Interface) error
	// check returns what is wrong now ("got X, want Y"); the test waits
	// up to settle for it to return nothing.
	check func(ctx context.Context, c kubernetes.Interface) []string
}

// TestKubeControllerManager runs kube-controller-manager's real
// controllers as an actor in a synctest bubble against a replay. It uses
// no socket and no real-time wait. A StatefulSet gets its pods and a
// ControllerRevision, and a Deployment its ReplicaSet and pods. The
// garbage collector removes dependents in the foreground, and orphans
// them. The actor's Run returns once ctx ends (the bubble would not end
// with one of its goroutines left).
func TestKubeControllerManager(t *testing.T) {
	restore := harness.QuietClientGo()
	t.Cleanup(restore)
	if os.Getenv("KCM_DEBUG") != "" {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("v", os.Getenv("KCM_DEBUG"))
		klog.SetOutput(os.Stderr)
		_ = fs.Set("logtostderr", "true")
	}
	orphan := metav1.DeletePropagationOrphan
	cases := []kcmCase{{
		name: "statefulset - 3 replicas in parallel - pass", clients: []string{"statefulset-controller"},
		act: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.AppsV1().StatefulSets(ns).Create(ctx, statefulSet("web", 3), metav1.CreateOptions{})
			return err
		},
		check: func(ctx context.Context, c kubernetes.Interface) []string {
			sts, err := c.AppsV1().StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return []string{fmt.Sprintf("got %v getting the StatefulSet, want it", err)}
			}
			out := controlled(ctx, c, "pods", sts.UID, []string{"web-0", "web-1", "web-2"})
			out = append(out, controlledCount(ctx, c, "controllerrevisions", sts.UID, 1)...)
			if sts.Status.Replicas != 3 { // pods start Pending (no kubelet runs them): created, not ready
				out = append(out, fmt.Sprintf("got status.replicas %d, want 3", sts.Status.Replicas))
			}
			return out
		},
	}, {
		name: "deployment - 2 replicas - pass", clients: []string{"deployment-controller", "replicaset-controller"},
		act: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.AppsV1().Deployments(ns).Create(ctx, deploymentOf("api", 2), metav1.CreateOptions{})
			return err
		},
		check: func(ctx context.Context, c kubernetes.Interface) []string {
			d, err := c.AppsV1().Deployments(ns).Get(ctx, "api", metav1.GetOptions{})
			if err != nil {
				return []string{fmt.Sprintf("got %v getting the Deployment, want it", err)}
			}
			rss := owned(ctx, c, "replicasets", d.UID)
			if len(rss) != 1 {
				return []string{fmt.Sprintf("got ReplicaSets %v, want 1 controlled by the Deployment", rss)}
			}
			rs, err := c.AppsV1().ReplicaSets(ns).Get(ctx, rss[0], metav1.GetOptions{})
			if err != nil {
				return []string{fmt.Sprintf("got %v getting ReplicaSet %s, want it", err, rss[0])}
			}
			return controlledCount(ctx, c, "pods", rs.UID, 2)
		},
	}, {
		name: "job - 2 completions, parallelism 2 - pass", clients: []string{"job-controller"},
		act: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.BatchV1().Jobs(ns).Create(ctx, jobOf("once", 2), metav1.CreateOptions{})
			return err
		},
		check: func(ctx context.Context, c kubernetes.Interface) []string {
			j, err := c.BatchV1().Jobs(ns).Get(ctx, "once", metav1.GetOptions{})
			if err != nil {
				return []string{fmt.Sprintf("got %v getting the Job, want it", err)}
			}
			return controlledCount(ctx, c, "pods", j.UID, 2)
		},
	}, {
		name:    "garbage collector - deployment deleted in the foreground - pass",
		clients: []string{"generic-garbage-collector", "metadata-informers", "controller-discovery"},
		act:     deleteInForeground,
		check: func(ctx context.Context, c kubernetes.Interface) []string {
			out := countOf(ctx, c, "deployments", 0)
			out = append(out, countOf(ctx, c, "replicasets", 0)...)
			return append(out, countOf(ctx, c, "pods", 0)...)
		},
	}, {
		name:        "garbage collector - deployment deleted in the foreground, no collector running - fail",
		controllers: []string{"deployment-controller", "replicaset-controller"},
		act:         deleteInForeground,
		check: func(ctx context.Context, c kubernetes.Interface) []string {
			d, err := c.AppsV1().Deployments(ns).Get(ctx, "api", metav1.GetOptions{})
			if err != nil || d.DeletionTimestamp == nil {
				return []string{fmt.Sprintf("got %v (deletionTimestamp %v), want the Deployment kept being deleted: nothing collects", err, d.GetDeletionTimestamp())}
			}
			return countOf(ctx, c, "pods", 2)
		},
	}, {
		name: "garbage collector - replicaset deleted orphaning its pods - pass", clients: []string{"generic-garbage-collector"},
		act: func(ctx context.Context, c kubernetes.Interface) error {
			if _, err := c.AppsV1().ReplicaSets(ns).Create(ctx, replicaSetOf("cache", 2), metav1.CreateOptions{}); err != nil {
				return err
			}
			if problems := waitFor(ctx, c, func(ctx context.Context, c kubernetes.Interface) []string {
				return countOf(ctx, c, "pods", 2)
			}); len(problems) > 0 {
				return fmt.Errorf("before the delete: %v", problems)
			}
			return c.AppsV1().ReplicaSets(ns).Delete(ctx, "cache", metav1.DeleteOptions{PropagationPolicy: &orphan})
		},
		check: func(ctx context.Context, c kubernetes.Interface) []string {
			out := countOf(ctx, c, "replicasets", 0)
			out = append(out, countOf(ctx, c, "pods", 2)...)
			pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return append(out, fmt.Sprintf("got %v listing pods, want them", err))
			}
			for _, p := range pods.Items {
				if len(p.OwnerReferences) > 0 {
					out = append(out, fmt.Sprintf("pod %s: got ownerReferences %v, want none (orphaned)", p.Name, p.OwnerReferences))
				}
			}
			return out
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runCase(t, tc) })
		})
	}
}

// runCase runs tc in the calling bubble. It makes a replay of a history
// holding only the namespace, and runs the kube-controller-manager actor
// on it. It runs tc's acts through a client of the test's own. Then it
// runs tc's check until it holds or settle passed. Then it stops the
// actor and waits for its Run.
func runCase(t *testing.T, tc kcmCase) {
	srv := replayer.New(namespaceHistory(t), replayer.WithoutGC(), replayer.WithDefaulter(actors.Defaults()))
	a, err := actors.KubeControllerManager(tc.controllers...)
	if err != nil {
		t.Fatalf("got %v, want the actor", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	cfg := actorConfig(srv, a.Name)
	uas := &userAgents{rt: cfg.Transport, seen: map[string]bool{}}
	cfg.Transport = uas
	go func() { done <- a.Run(ctx, actor.Env{Config: cfg}) }()
	c := kubernetes.NewForConfigOrDie(&rest.Config{Host: "http://replay", Transport: srv.Transport()})
	if err := tc.act(ctx, c); err != nil {
		t.Errorf("got %v acting, want no error", err)
	}
	for _, p := range waitFor(ctx, c, tc.check) {
		t.Error(p)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("got Run's error %v, want none", err)
	}
	uas.check(t, append([]string{"shared-informers"}, tc.clients...)...)
}

// userAgents records the User-Agents of the requests it hands on to rt.
type userAgents struct {
	rt   http.RoundTripper
	mu   sync.Mutex
	seen map[string]bool
}

// RoundTrip records req's User-Agent and hands req on.
func (u *userAgents) RoundTrip(req *http.Request) (*http.Response, error) {
	u.mu.Lock()
	u.seen[req.Header.Get("User-Agent")] = true
	u.mu.Unlock()
	return u.rt.RoundTrip(req)
}

// check fails t unless every User-Agent seen is kube-controller-manager's
// for one of its clients ("kube-controller-manager/v1.37.2 (linux/amd64)
// kubernetes/unknown/<client>") and each client of want was seen.
func (u *userAgents) check(t *testing.T, want ...string) {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	prefix := fmt.Sprintf("kube-controller-manager/%s (%s/%s) kubernetes/unknown/", actors.KubernetesVersion(), runtime.GOOS, runtime.GOARCH)
	clients := map[string]bool{}
	for ua := range u.seen {
		client, ok := strings.CutPrefix(ua, prefix)
		if !ok {
			t.Errorf("got User-Agent %q, want one starting %q", ua, prefix)
		}
		clients[client] = true
	}
	for _, w := range want {
		if !clients[w] {
			t.Errorf("got clients %v, want %s among them", slices.Sorted(maps.Keys(clients)), w)
		}
	}
}

// actorConfig is the rest.Config an actor named name reaches srv with.
func actorConfig(srv *replayer.Server, name string) *rest.Config {
	return &rest.Config{Host: "http://replay", Transport: srv.TransportAs(name), UserAgent: actor.UserAgent(name)}
}

// namespaceHistory is a history of the namespace ns alone.
func namespaceHistory(t *testing.T) *history.History {
	b := synth.NewBuilder()
	b.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	b.Snapshot()
	h, err := b.History()
	if err != nil {
		t.Fatalf("got %v building the history, want none", err)
	}
	return h
}

// waitFor waits (virtual time) for check to hold, up to settle, and
// returns its last problems.
func waitFor(ctx context.Context, c kubernetes.Interface, check func(context.Context, kubernetes.Interface) []string) []string {
	deadline := time.Now().Add(settle)
	for {
		problems := check(ctx, c)
		if len(problems) == 0 || time.Now().After(deadline) {
			return problems
		}
		time.Sleep(time.Second)
	}
}

// deleteInForeground creates Deployment "api" of 2 replicas, waits for its
// pods and deletes it with foreground propagation: what the two foreground
// garbage-collector cases do.
func deleteInForeground(ctx context.Context, c kubernetes.Interface) error {
	if _, err := c.AppsV1().Deployments(ns).Create(ctx, deploymentOf("api", 2), metav1.CreateOptions{}); err != nil {
		return err
	}
	if problems := waitFor(ctx, c, func(ctx context.Context, c kubernetes.Interface) []string {
		return countOf(ctx, c, "pods", 2)
	}); len(problems) > 0 {
		return fmt.Errorf("before the delete: %v", problems)
	}
	fg := metav1.DeletePropagationForeground
	return c.AppsV1().Deployments(ns).Delete(ctx, "api", metav1.DeleteOptions{PropagationPolicy: &fg})
}
