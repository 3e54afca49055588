package kuberay

import (
	"context"
	"testing"

	routev1 "github.com/openshift/api/route/v1"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	configapi "github.com/ray-project/kuberay/ray-operator/apis/config/v1alpha1"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/batchscheduler"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/history"
)

// cassettes are the recordings of a user's RayClusters (e2e's
// TestRecordKubeRay): WatchList, and LIST in pages of 2 then WATCH.
var cassettes = fuzz.Glob("testdata/rayclusters-*.yaml")

// The resources the runs judge: RayClusters (the run's resource: the
// manager's RayCluster informer is the one the probe judges), and the
// Pods and Services the controller owns.
var (
	rayClusters = history.Resource{Group: "ray.io", Version: "v1", Resource: "rayclusters", Kind: "RayCluster", Namespaced: true}
	pods        = history.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	services    = history.Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}
)

// scheme is the operator's scheme (main.go init): client-go's kinds,
// KubeRay's, OpenShift's Routes, batch Jobs and the operator's config.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(rayv1.AddToScheme(s))
	utilruntime.Must(routev1.Install(s))
	utilruntime.Must(batchv1.AddToScheme(s))
	utilruntime.Must(configapi.AddToScheme(s))
	return s
}()

// managerOptions are the manager options of KubeRay's main.go with its
// default flags: every namespace watched (--watch-namespace unset), batch
// Jobs cached only with KubeRay's created-by label (cacheSelectors).
// Leader election is off (crtarget's default; the operator's is on). There
// is no metrics or probe server: a run listens on no port.
func managerOptions(t testing.TB) manager.Options {
	req, err := labels.NewRequirement(utils.KubernetesCreatedByLabelKey, selection.Equals, []string{utils.ComponentName})
	if err != nil {
		t.Fatal(err)
	}
	return manager.Options{
		Scheme: scheme,
		Cache: cache.Options{
			DefaultNamespaces: map[string]cache.Config{},
			ByObject: map[client.Object]cache.ByObject{
				&batchv1.Job{}: {Label: labels.NewSelector().Add(*req)},
			},
		},
	}
}

// target runs KubeRay's RayCluster controller in a manager built with the
// operator's options: its own NewReconciler and SetupWithManager, with
// the options and concurrency main.go gives them by default.
func target(t testing.TB) fuzz.Target {
	return crtarget.TargetWithOptions("kuberay-raycluster", "the RayCluster controller of the KubeRay operator v1.5.0", managerOptions(t), func(mgr manager.Manager) error {
		ctx := context.Background()
		config := configapi.Configuration{ReconcileConcurrency: configapi.DefaultReconcileConcurrency}
		sched, err := batchscheduler.NewSchedulerManager(ctx, config, mgr.GetConfig(), mgr.GetClient())
		if err != nil {
			return err
		}
		sched.AddToScheme(mgr.GetScheme())
		return ray.NewReconciler(ctx, mgr, ray.RayClusterReconcilerOptions{
			BatchSchedulerManager: sched,
		}).SetupWithManager(mgr, config.ReconcileConcurrency)
	})
}
