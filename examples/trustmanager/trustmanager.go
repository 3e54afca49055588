// Package trustmanager fuzzes cert-manager's trust-manager
// (github.com/cert-manager/trust-manager) on recordings of a real
// kube-apiserver. It runs its own Bundle controller, set up by its own
// bundle.SetupWithManager. The controller-runtime manager is built with
// the options of its main (cmd/trust-manager/app). Nothing of
// trust-manager is copied: the example imports it.
package trustmanager

import (
	"context"
	"fmt"

	trustapi "github.com/cert-manager/trust-manager/pkg/apis/trust/v1alpha1"
	"github.com/cert-manager/trust-manager/pkg/bundle"
	"github.com/cert-manager/trust-manager/pkg/bundle/controller"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
)

// TrustNamespace is the namespace trust-manager reads sources from: its
// --trust-namespace flag's default.
const TrustNamespace = "cert-manager"

// BundleOptions are the Bundle controller's options as trust-manager's
// flags default them. The trust namespace is cert-manager. There is no
// default CA package (the Helm chart mounts one from an image; none
// here). Secret targets are off, with no certificate filters, and
// every namespace is a target.
func BundleOptions() controller.Options {
	return controller.Options{Namespace: TrustNamespace}
}

// ManagerOptions are the manager options of trust-manager's main
// (cmd/trust-manager/app.NewCommand): its scheme (client-go's types and
// trust.cert-manager.io/v1alpha1), its cache options (bundle.CacheOpts:
// ConfigMaps and Secrets cached in the trust namespace only), its leader
// election ID. Leader election is off: a run is one instance. Metrics,
// health probes and the webhook server are left out: a run listens on no
// port (crtarget.NewManager sets that).
func ManagerOptions(opts controller.Options) (manager.Options, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, trustapi.AddToScheme} {
		if err := add(s); err != nil {
			return manager.Options{}, fmt.Errorf("trust-manager's scheme: %w", err)
		}
	}
	return manager.Options{
		Scheme:                        s,
		LeaderElection:                false,
		LeaderElectionID:              "trust-manager-leader-election",
		LeaderElectionReleaseOnCancel: true,
		Cache:                         bundle.CacheOpts(opts),
	}, nil
}

// Target is trust-manager's Bundle controller as a fuzz target. The
// manager is built with ManagerOptions(opts), through
// crtarget.TargetWithOptions. trust-manager's own
// bundle.SetupWithManager sets it up. That adds the controller, and its
// target cache: metadata of the ConfigMaps labelled
// trust.cert-manager.io/bundle, every namespace.
func Target(name string, opts controller.Options) (fuzz.Target, error) {
	mo, err := ManagerOptions(opts)
	if err != nil {
		return fuzz.Target{}, err
	}
	return crtarget.TargetWithOptions(name, "cert-manager's trust-manager Bundle controller (bundle.SetupWithManager)", mo,
		func(mgr manager.Manager) error {
			return bundle.SetupWithManager(context.Background(), mgr, opts)
		}), nil
}
