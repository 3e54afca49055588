package eck

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/elastic/cloud-on-k8s/v3/pkg/controller/agent"
	"github.com/elastic/cloud-on-k8s/v3/pkg/controller/common/nsmatch"
	"github.com/elastic/cloud-on-k8s/v3/pkg/controller/common/operator"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/history"
)

// agentCassettes are the recordings of a user's standalone Agents (e2e's
// TestRecordECKAgent): WatchList, and LIST in pages of 2 then WATCH.
var agentCassettes = fuzz.Glob("testdata/agents-*.yaml")

// The resources the Agent runs judge: Agents (the run's resource) and
// the one vehicle kind the Beat runs do not have.
var (
	agents       = history.Resource{Group: "agent.k8s.elastic.co", Version: "v1alpha1", Resource: "agents", Kind: "Agent", Namespaced: true}
	statefulSets = history.Resource{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true}
)

// agentTarget runs ECK's Agent controller in a manager built with the
// operator's options. Its own agent.Add adds it, with the parameters the
// operator's main gives it.
func agentTarget(t testing.TB) fuzz.Target {
	return crtarget.TargetWithOptions("eck-agent", "the Agent controller of the Elastic Cloud on Kubernetes operator v3.5.0, standalone Agents", managerOptions(t), func(mgr manager.Manager) error {
		matcher := nsmatch.NewNamespaceMatcher(nil, operatorNamespace)
		matcher.SetCache(mgr.GetCache())
		return agent.Add(mgr, operator.Parameters{
			OperatorNamespace:       operatorNamespace,
			MaxConcurrentReconciles: maxConcurrentReconciles,
			NamespaceMatcher:        matcher,
		})
	})
}

// agentOptions are the Agent fuzz options. They take the Agent cassettes
// on both client paths, and Sieve's scenarios from every fault-free
// seed. They add the Agent invariant beside the built-in ones.
func agentOptions(t fuzz.Target) fuzz.Options {
	return fuzz.Options{
		Cassettes: agentCassettes,
		Resource:  agents,
		Target:    t,
		Scenarios: true,
		Known:     crtarget.KnownFindings(),
		Extra:     []fuzz.Invariant{agentVehicleMatchesSpec},
	}
}

// FuzzAgents fuzzes ECK's Agent controller on standalone Agents. go test
// runs its seeds: every cassette and client path, no fault, and the
// scenarios made from each fault-free run.
func FuzzAgents(f *testing.F) {
	fuzz.Run(f, agentOptions(agentTarget(f)))
}
