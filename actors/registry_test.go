package actors_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/actors"
)

// TestRegistry checks the registry's actors. kube-controller-manager's
// controllers come by their kube-controller-manager names. Each has a
// one-line doc naming its source and version and what it takes over. The
// kube-controller-manager actor has all of them.
func TestRegistry(t *testing.T) {
	r := actors.Registry()
	tests := []struct {
		name     string
		actor    string
		takes    []string // "resource.group<-Kind.group"
		collects bool
	}{
		{name: "registry - statefulset-controller - pass", actor: "statefulset-controller",
			takes: []string{"pods<-StatefulSet.apps", "controllerrevisions.apps<-StatefulSet.apps", "persistentvolumeclaims<-StatefulSet.apps"}},
		{name: "registry - replicaset-controller - pass", actor: "replicaset-controller", takes: []string{"pods<-ReplicaSet.apps"}},
		{name: "registry - deployment-controller - pass", actor: "deployment-controller", takes: []string{"replicasets.apps<-Deployment.apps"}},
		{name: "registry - job-controller - pass", actor: "job-controller", takes: []string{"pods<-Job.batch"}},
		{name: "registry - daemonset-controller - pass", actor: "daemonset-controller",
			takes: []string{"pods<-DaemonSet.apps", "controllerrevisions.apps<-DaemonSet.apps"}},
		{name: "registry - endpointslice-controller - pass", actor: "endpointslice-controller", takes: []string{"endpointslices.discovery.k8s.io<-Service"}},
		{name: "registry - namespace-controller - pass", actor: "namespace-controller"},
		{name: "registry - garbage-collector-controller - pass", actor: "garbage-collector-controller", collects: true},
	}
	var all []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Lookup(tt.actor)
			if err != nil || len(got) != 1 {
				t.Fatalf("got %d actors, error %v, want one", len(got), err)
			}
			a := got[0]
			if takes := takeovers(a.Takes); !slices.Equal(takes, tt.takes) {
				t.Errorf("got takes %v, want %v", takes, tt.takes)
			}
			if a.Collects != tt.collects {
				t.Errorf("got collects %v, want %v", a.Collects, tt.collects)
			}
			checkDoc(t, a)
			if a.Run == nil {
				t.Errorf("got no Run, want one")
			}
		})
		all = append(all, tt.takes...)
	}
	t.Run("registry - kube-controller-manager - pass", func(t *testing.T) {
		got, err := r.Lookup(actors.KubeControllerManagerName)
		if err != nil || len(got) != 1 {
			t.Fatalf("got %d actors, error %v, want one", len(got), err)
		}
		if takes := takeovers(got[0].Takes); !slices.Equal(takes, all) {
			t.Errorf("got takes %v, want every controller's %v", takes, all)
		}
		if !got[0].Collects || !actor.Collects(got) {
			t.Errorf("got collects %v, want true (the garbage collector is among its controllers)", got[0].Collects)
		}
		checkDoc(t, got[0])
		want := append([]string{actors.KubeControllerManagerName, actors.ClusterGroup}, actors.Controllers()...)
		for _, a := range actors.NodeActors() {
			want = append(want, a.Name)
		}
		if !slices.Equal(r.Names(), sorted(want)) {
			t.Errorf("got names %v, want %v", r.Names(), sorted(want))
		}
	})
}

// TestKubeControllerManagerChoice checks the actors KubeControllerManager
// builds for a choice of controllers.
func TestKubeControllerManagerChoice(t *testing.T) {
	tests := []struct {
		name     string
		chosen   []string
		doc      string // in the doc, which lists the controllers in build order
		collects bool
		err      error
	}{
		{name: "kube-controller-manager - two, out of order - pass", chosen: []string{"replicaset-controller", "statefulset-controller", "replicaset-controller"},
			doc: "statefulset-controller, replicaset-controller in one ControllerContext"},
		{name: "kube-controller-manager - with the garbage collector - pass", chosen: []string{"garbage-collector-controller"}, doc: ": garbage-collector-controller in", collects: true},
		{name: "kube-controller-manager - every controller - pass", doc: strings.Join(actors.Controllers(), ", "), collects: true},
		{name: "kube-controller-manager - unknown controller - fail", chosen: []string{"statefulset-controller", "statefulset"}, err: actors.ErrUnknownController},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := actors.KubeControllerManager(tt.chosen...)
			if !errors.Is(err, tt.err) {
				t.Fatalf("got error %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if a.Name != actors.KubeControllerManagerName || !strings.Contains(a.Doc, tt.doc) || a.Collects != tt.collects {
				t.Errorf("got %s %q collects %v, want %s with %q in its doc, collects %v", a.Name, a.Doc, a.Collects, actors.KubeControllerManagerName, tt.doc, tt.collects)
			}
		})
	}
}

// takeovers writes takes as "resource.group<-Kind.group", in order.
func takeovers(takes []actor.Takeover) []string {
	var out []string
	for _, tk := range takes {
		for _, k := range tk.ControllerKinds {
			out = append(out, fmt.Sprintf("%s<-%s", tk.Resource, k))
		}
	}
	return out
}

// checkDoc fails t unless a's doc is one line naming kube-controller-
// manager's source and version.
func checkDoc(t *testing.T, a actor.Actor) {
	t.Helper()
	if a.Doc == "" || strings.Contains(a.Doc, "\n") || !strings.Contains(a.Doc, "k8s.io/kubernetes/") || !strings.Contains(a.Doc, actors.KubernetesVersion()) {
		t.Errorf("got doc %q, want one line naming k8s.io/kubernetes's package and version %s", a.Doc, actors.KubernetesVersion())
	}
	if !strings.HasPrefix(actors.KubernetesVersion(), "v1.") {
		t.Errorf("got KubernetesVersion %q, want the k8s.io/kubernetes module's (v1.x.y)", actors.KubernetesVersion())
	}
}

// sorted returns s sorted.
func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
