package cassharness

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	api "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	configv1beta1 "github.com/k8ssandra/cass-operator/apis/config/v1beta1"
	controlv1alpha1 "github.com/k8ssandra/cass-operator/apis/control/v1alpha1"
	controllers "github.com/k8ssandra/cass-operator/internal/controllers/cassandra"
	"github.com/k8ssandra/cass-operator/pkg/images"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/history"
)

// operatorSource is the cass-operator source this module's go.mod
// replaces the module with: its image config and CRDs are read from it.
const operatorSource = "../cass-operator"

// The resources the runs judge: CassandraDatacenters (the run's
// resource) and the PersistentVolumeClaims of their StatefulSets.
var (
	datacenters = history.Resource{Group: "cassandra.datastax.com", Version: "v1beta1", Resource: "cassandradatacenters", Kind: "CassandraDatacenter", Namespaced: true}
	pvcs        = history.Resource{Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true}
)

// cassettes are the recordings of TestRecordCassandra: WatchList, and
// LIST in pages of 2 then WATCH.
var cassettes = fuzz.Glob("testdata/cassandra-*.yaml")

// newScheme is the scheme of cass-operator's cmd/main.go: client-go's
// kinds and the operator's three API groups.
func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(api.AddToScheme(s))
	utilruntime.Must(configv1beta1.AddToScheme(s))
	utilruntime.Must(controlv1alpha1.AddToScheme(s))
	return s
}

var scheme = newScheme()

// imageRegistry is the operator's image registry, read from the image
// config its deployment mounts as a ConfigMap (config/imageconfig). The
// operator's main reads that ConfigMap before the manager starts, through
// an uncached client; the harness reads the file once.
func imageRegistry(t testing.TB) images.ImageRegistry {
	b, err := os.ReadFile(filepath.Join(operatorSource, "config", "imageconfig", "image_config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := images.NewImageRegistryV2(b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// managerOptions are the manager options of cass-operator's cmd/main.go
// for an operator that watches every namespace (WATCH_NAMESPACE unset):
// its scheme, and a cache of every namespace. Leader election is off (the
// operator's default). There is no metrics, health or webhook server: a
// run listens on no port.
func managerOptions() manager.Options {
	return manager.Options{
		Scheme: scheme,
		Cache:  cache.Options{DefaultNamespaces: map[string]cache.Config{}},
	}
}

// addIndexers adds the two field indexes of cmd/main.go's
// setupCacheIndexers: pods by the claims of their volumes (deletePVCs'
// isBeingUsed lists pods by it), and Events by the pod they are about.
func addIndexers(mgr manager.Manager) error {
	ctx := context.Background()
	if err := mgr.GetCache().IndexField(ctx, &corev1.Pod{}, "spec.volumes.persistentVolumeClaim.claimName", func(obj client.Object) []string {
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			return nil
		}
		var names []string
		for _, v := range pod.Spec.Volumes {
			if v.PersistentVolumeClaim != nil {
				names = append(names, v.PersistentVolumeClaim.ClaimName)
			}
		}
		return names
	}); err != nil {
		return err
	}
	return mgr.GetCache().IndexField(ctx, &corev1.Event{}, "involvedObject.name", func(obj client.Object) []string {
		e, ok := obj.(*corev1.Event)
		if !ok || e.InvolvedObject.Kind != "Pod" {
			return nil
		}
		return []string{e.InvolvedObject.Name}
	})
}

// target runs cass-operator's CassandraDatacenter controller in a manager
// built with the operator's options, indexes and image registry. Its own
// SetupWithManager adds it, as cmd/main.go does. The CassandraTask and
// ScheduledTask controllers are left out: the user here runs no task.
func target(t testing.TB) fuzz.Target {
	reg := imageRegistry(t)
	return crtarget.TargetWithOptions("cass-operator", "the CassandraDatacenter controller of k8ssandra/cass-operator v1.32.0", managerOptions(), func(mgr manager.Manager) error {
		if err := addIndexers(mgr); err != nil {
			return err
		}
		return (&controllers.CassandraDatacenterReconciler{
			Client:           mgr.GetClient(),
			Log:              mgr.GetLogger().WithName("controllers").WithName("CassandraDatacenter"),
			Scheme:           mgr.GetScheme(),
			Recorder:         mgr.GetEventRecorder("cass-operator"),
			ImageRegistry:    reg,
			ClusterResources: true,
		}).SetupWithManager(mgr)
	})
}
