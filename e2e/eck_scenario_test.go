package e2e

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/history"
)

// The Beat custom resource of the Elastic Cloud on Kubernetes operator,
// and the scenario TestRecordECK records. (examples/eck fuzzes its Beat
// controller.) The scenario is what a user of ECK does to Beats, and the
// Secret one of them takes its configuration from.
var (
	beatGVR = schema.GroupVersionResource{Group: "beat.k8s.elastic.co", Version: "v1beta1", Resource: "beats"}
	// eckResources are the resources TestRecordECK records: the Beat
	// controller's own kind and every kind it watches (ECK's
	// pkg/controller/beat/controller.go addWatches: DaemonSets,
	// Deployments, Pods, Secrets).
	eckResources = []history.Resource{
		{Group: "beat.k8s.elastic.co", Version: "v1beta1", Resource: "beats"},
		{Group: "apps", Version: "v1", Resource: "daemonsets"},
		{Group: "apps", Version: "v1", Resource: "deployments"},
		{Version: "v1", Resource: "pods"},
		{Version: "v1", Resource: "secrets"},
	}
)

const (
	// eckModule and eckVersion are the ECK release examples/eck imports;
	// its Beat CRD is read from that module's zip (config/crds).
	eckModule  = "github.com/elastic/cloud-on-k8s/v3"
	eckVersion = "v3.5.0"
	// eckExample is the example module that requires eckModule.
	eckExample = "../examples/eck"
	// eckNS is the namespace of the recorded Beats.
	eckNS = "e2e-eck"
	// eckConfigSecret is the Secret the uptime Beat's configRef names.
	eckConfigSecret = "uptime-config"
)

// eckBeatCRD returns the path of the Beat CRD in the ECK module that
// examples/eck requires (downloaded through the Go module proxy).
func eckBeatCRD(ctx context.Context) (string, error) {
	return eckCRD(ctx, "beat.k8s.elastic.co_beats.yaml")
}

// eckCRD returns the path of the CRD file in the ECK module that
// examples/eck requires (config/crds/v1/resources).
func eckCRD(ctx context.Context, file string) (string, error) {
	return moduleFile(ctx, eckExample, eckModule, eckVersion, "config/crds/v1/resources/"+file)
}

// beat returns a Beat of the scenario's namespace, of its type and
// version. It runs as a DaemonSet (replicas 0) or a Deployment of
// replicas. It has an inline config, or (configRef non-empty) the config
// of a Secret.
func beat(name, typ, version string, replicas int64, config map[string]any, configRef string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(beatGVR.GroupVersion().String())
	u.SetKind("Beat")
	u.SetNamespace(eckNS)
	u.SetName(name)
	spec := map[string]any{"type": typ, "version": version}
	if configRef != "" {
		spec["configRef"] = map[string]any{"secretName": configRef}
	} else {
		spec["config"] = config
	}
	container := map[string]any{"name": typ, "resources": map[string]any{"limits": map[string]any{"memory": "300Mi"}}}
	tmpl := map[string]any{"spec": map[string]any{"containers": []any{container}}}
	if replicas == 0 {
		spec["daemonSet"] = map[string]any{"podTemplate": tmpl}
	} else {
		spec["deployment"] = map[string]any{"replicas": replicas, "podTemplate": tmpl}
	}
	u.Object["spec"] = spec
	return u
}

// metricsConfig is the metrics Beat's inline config, collecting every
// period.
func metricsConfig(period string) map[string]any {
	return map[string]any{
		"metricbeat.modules": []any{map[string]any{"module": "system", "metricsets": []any{"cpu", "memory"}, "period": period}},
		"output.console":     map[string]any{"pretty": true},
	}
}

// uptimeConfig is the heartbeat.yml of the uptime Beat's Secret.
func uptimeConfig(schedule string) string {
	return "heartbeat.monitors:\n- type: http\n  id: web\n  urls: [\"http://web.e2e-eck.svc:8080\"]\n  schedule: '" + schedule + "'\noutput.console:\n  pretty: true\n"
}

// crUser is a user of one custom resource and of the Secret holding a
// config file. Each change is a second apart, so that each comes at a
// time of its own in the recording.
type crUser struct {
	cs     kubernetes.Interface
	dyn    dynamic.Interface
	pause  time.Duration
	gvr    schema.GroupVersionResource
	ns     string
	secret string                    // the config Secret's name
	key    string                    // its config file's key
	config func(value string) string // the config file, with one value changed
}

func (a crUser) create(ctx context.Context, u *unstructured.Unstructured) error {
	if _, err := a.dyn.Resource(a.gvr).Namespace(a.ns).Create(ctx, u, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create %s %s: %w", a.gvr.Resource, u.GetName(), err)
	}
	time.Sleep(a.pause)
	return nil
}

func (a crUser) update(ctx context.Context, name string, change func(*unstructured.Unstructured) error) error {
	rs := a.dyn.Resource(a.gvr).Namespace(a.ns)
	u, err := rs.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get %s %s: %w", a.gvr.Resource, name, err)
	}
	if err := change(u); err != nil {
		return fmt.Errorf("change %s %s: %w", a.gvr.Resource, name, err)
	}
	if _, err := rs.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update %s %s: %w", a.gvr.Resource, name, err)
	}
	time.Sleep(a.pause)
	return nil
}

func (a crUser) delete(ctx context.Context, name string) error {
	if err := a.dyn.Resource(a.gvr).Namespace(a.ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete %s %s: %w", a.gvr.Resource, name, err)
	}
	time.Sleep(a.pause)
	return nil
}

// putSecret creates the config Secret, or updates its config file.
func (a crUser) putSecret(ctx context.Context, value string) error {
	ss := a.cs.CoreV1().Secrets(a.ns)
	s, err := ss.Get(ctx, a.secret, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: a.ns, Name: a.secret}}
		s.StringData = map[string]string{a.key: a.config(value)}
		if _, err := ss.Create(ctx, s, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create secret %s: %w", a.secret, err)
		}
	case err != nil:
		return fmt.Errorf("get secret %s: %w", a.secret, err)
	default:
		s.Data = map[string][]byte{a.key: []byte(a.config(value))}
		if _, err := ss.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("update secret %s: %w", a.secret, err)
		}
	}
	time.Sleep(a.pause)
	return nil
}

// eckActor is the Beat scenario's user: they create, change and delete
// Beats, and the Secret of one's config.
type eckActor struct{ crUser }

// setField returns a change that sets the Beat's field at path to v.
func setField(v any, path ...string) func(*unstructured.Unstructured) error {
	return func(b *unstructured.Unstructured) error {
		return unstructured.SetNestedField(b.Object, v, path...)
	}
}

// prepopulate creates what exists before the recording starts: a
// metricbeat run as a DaemonSet.
func (a eckActor) prepopulate(ctx context.Context) error {
	return a.create(ctx, beat("metrics", "metricbeat", "8.17.0", 0, metricsConfig("10s"), ""))
}

// mutate is the recorded scenario, what an ECK user does. A heartbeat is
// created from a config Secret, run as a Deployment. The metricbeat is
// upgraded (8.17.0 to 8.18.0). The heartbeat is scaled (1 to 2
// replicas). The Secret's config changes, then the metricbeat's config.
// Then the metricbeat is deleted and created again under its name (a new
// UID).
func (a eckActor) mutate(ctx context.Context) error {
	steps := []func() error{
		func() error { return a.putSecret(ctx, "@every 30s") },
		func() error { return a.create(ctx, beat("uptime", "heartbeat", "8.17.0", 1, nil, eckConfigSecret)) },
		func() error { return a.update(ctx, "metrics", setField("8.18.0", "spec", "version")) },
		func() error { return a.update(ctx, "uptime", setField(int64(2), "spec", "deployment", "replicas")) },
		func() error { return a.putSecret(ctx, "@every 10s") },
		func() error {
			return a.update(ctx, "metrics", setField(metricsConfig("30s"), "spec", "config"))
		},
		func() error { return a.delete(ctx, "metrics") },
		func() error {
			return a.create(ctx, beat("metrics", "metricbeat", "8.18.0", 0, metricsConfig("30s"), ""))
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// eckRealStates lists every recorded resource of the cluster, keyed by
// resource name.
func eckRealStates(ctx context.Context, dyn dynamic.Interface) (map[string]map[string]map[string]any, error) {
	return eckRealStatesOf(ctx, dyn, eckResources)
}

// eckRealStatesOf lists each of resources in the cluster, keyed by
// resource name.
func eckRealStatesOf(ctx context.Context, dyn dynamic.Interface, resources []history.Resource) (map[string]map[string]map[string]any, error) {
	out := map[string]map[string]map[string]any{}
	for _, r := range resources {
		_, st, err := realState(ctx, dyn, schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}, "")
		if err != nil {
			return nil, err
		}
		out[r.Resource] = st
	}
	return out, nil
}

// eckCaughtUp says whether the cassette at path loads, and holds a log
// of every recorded resource that ends at want's keys and
// resourceVersions. With nil want, started logs are enough.
func eckCaughtUp(path string, want map[string]map[string]map[string]any) (bool, string) {
	return eckCaughtUpOf(eckResources, path, want)
}

// eckCaughtUpOf is eckCaughtUp for the logs of resources.
func eckCaughtUpOf(resources []history.Resource, path string, want map[string]map[string]map[string]any) (bool, string) {
	_, h, err := loadHistory(path)
	if err != nil {
		return false, err.Error()
	}
	for _, r := range resources {
		l, ok := h.Log(r)
		if !ok {
			return false, "no log for " + r.String() + " yet"
		}
		if want == nil {
			continue
		}
		got, err := historyState(l)
		if err != nil {
			return false, err.Error()
		}
		if g, w := stateSummary(got), stateSummary(want[r.Resource]); strings.Join(g, " ") != strings.Join(w, " ") {
			return false, fmt.Sprintf("%s: got %d objects %q, want %d %q", r.Resource, len(g), g, len(w), w)
		}
	}
	return true, ""
}
