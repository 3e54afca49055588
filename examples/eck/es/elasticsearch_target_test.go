package es

import (
	"testing"
	"time"

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
	"github.com/elastic/cloud-on-k8s/v3/pkg/controller/common/certificates"
	"github.com/elastic/cloud-on-k8s/v3/pkg/controller/common/nsmatch"
	"github.com/elastic/cloud-on-k8s/v3/pkg/controller/common/operator"
	"github.com/elastic/cloud-on-k8s/v3/pkg/controller/common/password"
	controllerscheme "github.com/elastic/cloud-on-k8s/v3/pkg/controller/common/scheme"
	"github.com/elastic/cloud-on-k8s/v3/pkg/controller/elasticsearch"
	"github.com/elastic/cloud-on-k8s/v3/pkg/utils/cryptutil"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/history"
)

// The resources the runs judge: Elasticsearches (the run's resource: the
// manager's Elasticsearch informer is the one the probe judges), the
// StatefulSets ECK writes and the Pods the StatefulSet controller makes.
var (
	elasticsearches = history.Resource{Group: "elasticsearch.k8s.elastic.co", Version: "v1", Resource: "elasticsearches", Kind: "Elasticsearch", Namespaced: true}
	statefulSets    = history.Resource{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true}
	pods            = history.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
)

// operatorNamespace is the namespace the operator would run in
// (--operator-namespace). The license checker looks there for an
// enterprise license, and finds none: the cluster runs a basic license.
const operatorNamespace = "elastic-system"

// The operator's defaults (cmd/manager/main.go): --max-concurrent-reconciles
// and --password-length. --elasticsearch-observation-interval is 0, not
// its default 10s: "non-positive values disable asynchronous observation"
// (main.go:222), so the controller observes health at each reconcile.
// An asynchronous observer is a goroutine the process keeps until it
// exits (observer/observer.go:78-91, stopped only when its Elasticsearch
// is deleted): a stopped manager would leave it blocked on its health
// channel (observer/watch.go:48), which clean-stop reports.
const (
	maxConcurrentReconciles = 3
	observationInterval     = time.Duration(0)
	passwordLength          = 24
)

// esNodes are the Elasticsearch nodes the fake cluster knows: the pods
// the nodeSet "default" of the Elasticsearch "es" may have.
var esNodes = []string{"es-es-default-0", "es-es-default-1", "es-es-default-2"}

func init() {
	// The operator's main registers every ECK kind with client-go's
	// scheme and builds its manager on that scheme.
	controllerscheme.SetupScheme()
}

// managerOptions are the manager options of ECK's cmd/manager/main.go for
// an operator that manages every namespace, as examples/eck's are (see
// its managerOptions): leader election off, no metrics or webhook server,
// managedFields stripped, ECK's workloads and Pods cached only with its
// common.k8s.elastic.co/type label.
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

// target runs ECK's Elasticsearch controller in a manager built with the
// operator's options. Its own elasticsearch.Add adds it, with the
// parameters the operator's main gives it (cmd/manager/main.go:774-797),
// but for its Dialer: every Elasticsearch connection reaches a fake
// cluster of its own instance (fakeES), made when the instance starts.
// seen, when not nil, gets each instance's fake.
func target(t testing.TB, seen func(*fakeES)) fuzz.Target {
	return crtarget.TargetWithOptions("eck-elasticsearch", "the Elasticsearch controller of the Elastic Cloud on Kubernetes operator v3.5.0, its Elasticsearch HTTP API a fake", managerOptions(t), func(mgr manager.Manager) error {
		fake := newFakeES(esNodes...)
		if seen != nil {
			seen(fake)
		}
		if err := mgr.Add(fake); err != nil {
			return err
		}
		hasher, err := cryptutil.NewPasswordHasher(maxConcurrentReconciles * 5)
		if err != nil {
			return err
		}
		generator, err := password.NewGenerator(mgr.GetClient(), passwordLength, operatorNamespace)
		if err != nil {
			return err
		}
		matcher := nsmatch.NewNamespaceMatcher(nil, operatorNamespace)
		matcher.SetCache(mgr.GetCache())
		rotation := certificates.RotationParams{Validity: certificates.DefaultCertValidity, RotateBefore: certificates.DefaultRotateBefore}
		return elasticsearch.Add(mgr, operator.Parameters{
			Dialer:                           fake,
			ElasticsearchObservationInterval: observationInterval,
			OperatorNamespace:                operatorNamespace,
			IPFamily:                         corev1.IPv4Protocol,
			CACertRotation:                   rotation,
			CertRotation:                     rotation,
			PasswordHasher:                   hasher,
			PasswordGenerator:                generator,
			MaxConcurrentReconciles:          maxConcurrentReconciles,
			SetDefaultSecurityContext:        true,
			ValidateStorageClass:             true,
			NamespaceMatcher:                 matcher,
		})
	})
}
