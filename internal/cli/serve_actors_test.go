package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/lwreplay/lwreplay/actor"
)

// fakeActors is a registry of one actor, "configmapper", that creates the
// ConfigMap default/from-actor and waits for its context's end.
func fakeActors() *actor.Registry {
	return &actor.Registry{Actors: []actor.Actor{{
		Name: "configmapper", Doc: "creates default/from-actor",
		Run: func(ctx context.Context, env actor.Env) error {
			cs, err := kubernetes.NewForConfig(env.Config)
			if err != nil {
				return err
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "from-actor"}}
			if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				return err
			}
			<-ctx.Done()
			return nil
		},
	}}, Groups: map[string][]string{"all": {"configmapper"}}}
}

func TestServeActors(t *testing.T) {
	for _, c := range []struct {
		name     string
		registry *actor.Registry
		args     []string
		want     string // in stderr
	}{
		{"serve --actors - a binary without actors - fail", nil, []string{"--actors", "kubelet"}, "cd actors && go run ./cmd/lwreplay serve CASSETTE --actors kubelet"},
		{"serve --actors - an unknown actor - fail", fakeActors(), []string{"--actors", "nope"}, `unknown actor "nope" (known: all, configmapper)`},
		{"serve --actors - with --read-only - fail", fakeActors(), []string{"--actors", "all", "--read-only"}, "the actors write"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append(append([]string{"serve"}, c.args...), shipped)
			if code := Run(t.Context(), args, &out, &errOut, Options{Actors: c.registry}); code != 2 {
				t.Fatalf("got exit %d, want 2; stderr: %s", code, errOut.String())
			}
			if !strings.Contains(errOut.String(), c.want) {
				t.Errorf("got stderr %q, want it to say %q", errOut.String(), c.want)
			}
		})
	}
	t.Run("serve --actors - an actor's write is served - pass", func(t *testing.T) {
		kc := filepath.Join(t.TempDir(), "kubeconfig")
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var out, errOut bytes.Buffer
		done := make(chan int, 1)
		go func() {
			done <- Run(ctx, []string{"serve", "--actors", "all", "--write-kubeconfig", kc, shipped}, &out, &errOut, Options{Actors: fakeActors()})
		}()
		var got *corev1.ConfigMap
		for deadline := time.Now().Add(time.Minute); got == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(kc); err != nil {
				continue
			}
			cfg, err := clientcmd.BuildConfigFromFlags("", kc)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, _ = cs.CoreV1().ConfigMaps("default").Get(ctx, "from-actor", metav1.GetOptions{})
		}
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("got exit %d, want 0; stderr: %s", code, errOut.String())
		}
		if got == nil {
			t.Fatalf("got no ConfigMap default/from-actor, want the actor's")
		}
		if !strings.Contains(out.String(), "actors: configmapper") {
			t.Errorf("got stdout %q, want it to name the actors", out.String())
		}
	})
}
