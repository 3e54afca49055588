package e2e

import (
	"context"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/history"
)

// The Agent custom resource of ECK, and the scenario TestRecordECKAgent
// records. (examples/eck fuzzes its Agent controller in standalone mode.)
var (
	agentGVR = schema.GroupVersionResource{Group: "agent.k8s.elastic.co", Version: "v1alpha1", Resource: "agents"}
	// eckAgentResources are the Agent controller's own kind and every
	// kind it watches (ECK's pkg/controller/agent/controller.go
	// addWatches: DaemonSets, Deployments, StatefulSets, Pods, Secrets,
	// Services).
	eckAgentResources = []history.Resource{
		{Group: "agent.k8s.elastic.co", Version: "v1alpha1", Resource: "agents"},
		{Group: "apps", Version: "v1", Resource: "daemonsets"},
		{Group: "apps", Version: "v1", Resource: "deployments"},
		{Group: "apps", Version: "v1", Resource: "statefulsets"},
		{Version: "v1", Resource: "pods"},
		{Version: "v1", Resource: "secrets"},
		{Version: "v1", Resource: "services"},
	}
)

const (
	// agentNS is the namespace of the recorded Agents.
	agentNS = "e2e-eck-agent"
	// agentConfigSecret is the Secret the collector Agent's configRef names.
	agentConfigSecret = "collector-config"
)

// TestRecordECKAgent records what a user of ECK does to standalone
// Elastic Agents. ECK's Agent CRD, from the module examples/eck
// requires, is applied to a real kube-apiserver of its own. It records
// on both client paths, as TestRecordECK does. An Agent is upgraded, and
// another created from a config Secret and scaled. The Secret changes.
// An Agent is deleted and created again under its name. No operator
// runs. Under -update the recordings become examples/eck's agents-*
// cassettes.
func TestRecordECKAgent(t *testing.T) {
	crd := func(ctx context.Context) (string, error) { return eckCRD(ctx, "agent.k8s.elastic.co_agents.yaml") }
	oc := startOperatorCluster(t, agentNS, operatorCRD{crd, agentGVR})
	c, ctx := oc.c, t.Context()
	actor := agentActor{crUser{cs: oc.cs, dyn: oc.dyn, pause: actorPause, gvr: agentGVR, ns: agentNS, secret: agentConfigSecret, key: "agent.yml", config: collectorConfig}}
	if err := actor.create(ctx, agent("node", "8.17.0", 0, agentConfig("10s"), "")); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	recs, want := oc.recordWhile(t, outDir, "agents", eckAgentResources, actor.mutate)
	for _, r := range recs {
		files, h, err := loadHistory(r.out)
		if err != nil {
			t.Fatalf("%s: load %s: got error %v, want none", r.name, r.out, err)
		}
		t.Run("record eck agent - "+r.name+" - history ends at the real final state, the node agent recreated - pass", func(t *testing.T) {
			checkFinalStates(t, h, eckAgentResources, want)
			l, _ := h.Log(eckAgentResources[0])
			if err := checkRecreatedKey(l, agentNS+"/node"); err != nil {
				t.Error(err)
			}
		})
		checkReplays(t, h, want)
		checkSequenceAtLeast(t, "replay sequence - eck agent "+r.name, files, h, 1, 8)
		checkShippable(t, "record eck agent - "+r.name, c.Token, r.out, filepath.Join(eckFixtures, r.file), outDir, r.logDir)
	}
}

// agent returns a standalone Agent of the scenario's namespace, of its
// version. It runs as a DaemonSet (replicas 0) or a Deployment of
// replicas. It has an inline config, or (configRef non-empty) a Secret's.
func agent(name, version string, replicas int64, config map[string]any, configRef string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(agentGVR.GroupVersion().String())
	u.SetKind("Agent")
	u.SetNamespace(agentNS)
	u.SetName(name)
	spec := map[string]any{"version": version, "mode": "standalone"}
	if configRef != "" {
		spec["configRef"] = map[string]any{"secretName": configRef}
	} else {
		spec["config"] = config
	}
	container := map[string]any{"name": "agent", "resources": map[string]any{"limits": map[string]any{"memory": "500Mi"}}}
	tmpl := map[string]any{"spec": map[string]any{"containers": []any{container}}}
	if replicas == 0 {
		spec["daemonSet"] = map[string]any{"podTemplate": tmpl}
	} else {
		spec["deployment"] = map[string]any{"replicas": replicas, "podTemplate": tmpl}
	}
	u.Object["spec"] = spec
	return u
}

// agentConfig is an inline standalone config: system metrics every
// period, to the console.
func agentConfig(period string) map[string]any {
	return map[string]any{
		"outputs": map[string]any{"default": map[string]any{"type": "logstash", "hosts": []any{"logstash.e2e-eck-agent.svc:5044"}}},
		"inputs": []any{map[string]any{"id": "system-metrics", "type": "system/metrics", "use_output": "default",
			"streams": []any{map[string]any{"metricsets": []any{"cpu", "memory"}, "period": period}}}},
	}
}

// collectorConfig is the agent.yml of the collector Agent's Secret.
func collectorConfig(period string) string {
	return "outputs:\n  default:\n    type: logstash\n    hosts: [\"logstash.e2e-eck-agent.svc:5044\"]\ninputs:\n- id: web\n  type: http/metrics\n  use_output: default\n  streams:\n  - metricsets: [json]\n    hosts: [\"http://web.e2e-eck-agent.svc:8080\"]\n    period: " + period + "\n"
}

// agentActor is the Agent scenario's user: they create, change and
// delete Agents, and the Secret of the collector's config.
type agentActor struct{ crUser }

// mutate is the recorded scenario. A collector Agent is created from a
// config Secret, run as a Deployment. The node Agent is upgraded (8.17.0
// to 8.18.0). The collector is scaled (1 to 2 replicas). The Secret's
// config changes, then the node Agent's. Then the node Agent is deleted
// and created again under its name (a new UID).
func (a agentActor) mutate(ctx context.Context) error {
	steps := []func() error{
		func() error { return a.putSecret(ctx, "30s") },
		func() error { return a.create(ctx, agent("collector", "8.17.0", 1, nil, agentConfigSecret)) },
		func() error { return a.update(ctx, "node", setField("8.18.0", "spec", "version")) },
		func() error { return a.update(ctx, "collector", setField(int64(2), "spec", "deployment", "replicas")) },
		func() error { return a.putSecret(ctx, "10s") },
		func() error { return a.update(ctx, "node", setField(agentConfig("30s"), "spec", "config")) },
		func() error { return a.delete(ctx, "node") },
		func() error { return a.create(ctx, agent("node", "8.18.0", 0, agentConfig("30s"), "")) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}
