package eck

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	commonv1 "github.com/elastic/cloud-on-k8s/v3/pkg/apis/common/v1"
	"github.com/elastic/cloud-on-k8s/v3/pkg/controller/beat"
	"github.com/elastic/cloud-on-k8s/v3/pkg/controller/common/nsmatch"
	"github.com/elastic/cloud-on-k8s/v3/pkg/controller/common/operator"
	controllerscheme "github.com/elastic/cloud-on-k8s/v3/pkg/controller/common/scheme"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/history"
)

// cassettes are the recordings of a user's Beats (e2e's TestRecordECK):
// WatchList, and LIST in pages of 2 then WATCH.
var cassettes = fuzz.Glob("testdata/beats-*.yaml")

// The resources the runs judge: Beats (the run's resource: the manager's
// Beat informer is the one the probe judges) and the Beat controller's
// vehicles.
var (
	beats       = history.Resource{Group: "beat.k8s.elastic.co", Version: "v1beta1", Resource: "beats", Kind: "Beat", Namespaced: true}
	deployments = history.Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}
	daemonSets  = history.Resource{Group: "apps", Version: "v1", Resource: "daemonsets", Kind: "DaemonSet", Namespaced: true}
)

// operatorNamespace is the namespace the operator would run in
// (--operator-namespace); the Beat controller reads nothing there.
const operatorNamespace = "elastic-system"

// maxConcurrentReconciles is the operator's default
// --max-concurrent-reconciles (cmd/manager/main.go).
const maxConcurrentReconciles = 3

func init() {
	// The operator's main registers every ECK kind with client-go's
	// scheme and builds its manager on that scheme.
	controllerscheme.SetupScheme()
}

// managerOptions are the manager options of ECK's cmd/manager/main.go for
// an operator that manages every namespace. Leader election is off
// (crtarget's default; the operator's --enable-leader-election is on by
// default). There is no metrics or webhook server: a run listens on no
// port. The scheme is client-go's with ECK's kinds. managedFields are
// stripped from every cached object. Pods, PodDisruptionBudgets,
// Deployments, StatefulSets and DaemonSets are cached only when they
// carry ECK's common.k8s.elastic.co/type label. (That is its
// buildByObject, without --restrict-watched-resources.)
func managerOptions(t testing.TB) manager.Options {
	exists, err := labels.NewRequirement(commonv1.TypeLabelName, selection.Exists, nil)
	if err != nil {
		t.Fatal(err)
	}
	owned := labels.NewSelector().Add(*exists)
	return manager.Options{
		Scheme: clientgoscheme.Scheme,
		Cache: cache.Options{
			DefaultNamespaces: map[string]cache.Config{},
			DefaultTransform:  cache.TransformStripManagedFields(),
			ByObject: map[client.Object]cache.ByObject{
				&corev1.Pod{}:                   {Label: owned},
				&policyv1.PodDisruptionBudget{}: {Label: owned},
				&appsv1.Deployment{}:            {Label: owned},
				&appsv1.StatefulSet{}:           {Label: owned},
				&appsv1.DaemonSet{}:             {Label: owned},
			},
		},
	}
}

// target runs ECK's Beat controller in a manager built with the
// operator's options. Its own beat.Add adds it, with the parameters the
// operator's main gives it.
func target(t testing.TB) fuzz.Target {
	return crtarget.TargetWithOptions("eck-beat", "the Beat controller of the Elastic Cloud on Kubernetes operator v3.5.0", managerOptions(t), func(mgr manager.Manager) error {
		matcher := nsmatch.NewNamespaceMatcher(nil, operatorNamespace)
		matcher.SetCache(mgr.GetCache())
		return beat.Add(mgr, operator.Parameters{
			OperatorNamespace:       operatorNamespace,
			MaxConcurrentReconciles: maxConcurrentReconciles,
			NamespaceMatcher:        matcher,
		})
	})
}
