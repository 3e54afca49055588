package actors

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	cacheddiscovery "k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	controllersmetrics "k8s.io/component-base/metrics/prometheus/controllers"
	"k8s.io/controller-manager/pkg/informerfactory"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app/options"
	"k8s.io/kubernetes/cmd/kube-controller-manager/names"
	kubectrlmgrconfig "k8s.io/kubernetes/pkg/controller/apis/config"
	"k8s.io/kubernetes/pkg/controller/garbagecollector"
	gcconfig "k8s.io/kubernetes/pkg/controller/garbagecollector/config"
)

// kubeControllerManager is kube-controller-manager's component name: its
// User-Agent's program and its metrics' manager label.
const kubeControllerManager = "kube-controller-manager"

// restMapperResetPeriod is how often kube-controller-manager resets its
// RESTMapper (CreateControllerContext: wait.Until every 30 s).
const restMapperResetPeriod = 30 * time.Second

// ErrNoConfig says an actor was run without a rest.Config to reach the
// replay with.
var ErrNoConfig = errors.New("actor env has no rest.Config")

// kcm is one kube-controller-manager of a run: the ControllerContext
// its controllers share, and what must stop with it.
type kcm struct {
	cc        app.ControllerContext
	metadata  metadatainformer.SharedInformerFactory
	discovery discovery.CachedDiscoveryInterface
}

// newKCM builds the ControllerContext kube-controller-manager's
// CreateControllerContext builds, from its exported fields, over cfg,
// with enabled as --controllers. It has the same clients, informer
// factories (managedFields trimmed), RESTMapper and GraphBuilder. What
// it does not do: wait for /healthz, since the replay answers at once.
// Start the RESTMapper's reset loop; run starts it inside the run's ctx.
// Name the informers: cache.NewInformerName reserves a process-wide name
// for metrics, which two runs at once would collide on (1.35 has none).
// Draw a random resync period (resyncPeriod).
func newKCM(ctx context.Context, cfg *rest.Config, enabled []string) (*kcm, error) {
	if cfg == nil {
		return nil, ErrNoConfig
	}
	cc, err := componentConfig(enabled)
	if err != nil {
		return nil, err
	}
	builder := clientBuilder{base: kcmConfig(cfg, cc)}
	trim := func(obj any) (any, error) {
		if accessor, err := meta.Accessor(obj); err == nil && accessor.GetManagedFields() != nil {
			accessor.SetManagedFields(nil)
		}
		return obj, nil
	}
	resync := resyncPeriod(cc)
	versioned, err := builder.Client("shared-informers")
	if err != nil {
		return nil, err
	}
	shared := informers.NewSharedInformerFactoryWithOptions(versioned, resync(), informers.WithTransform(trim))
	metadataConfig, err := builder.Config("metadata-informers")
	if err != nil {
		return nil, err
	}
	metadataClient, err := metadata.NewForConfig(metadataConfig)
	if err != nil {
		return nil, fmt.Errorf("metadata client: %w", err)
	}
	metadataInformers := metadatainformer.NewSharedInformerFactoryWithOptions(metadataClient, resync(), metadatainformer.WithTransform(trim))
	discoveryClient, err := builder.DiscoveryClient("controller-discovery")
	if err != nil {
		return nil, err
	}
	cached := cacheddiscovery.NewMemCacheClient(discoveryClient)
	k := &kcm{
		cc: app.ControllerContext{
			ClientBuilder:                   builder,
			InformerFactory:                 shared,
			ObjectOrMetadataInformerFactory: informerfactory.NewInformerFactory(shared, metadataInformers),
			ComponentConfig:                 cc,
			RESTMapper:                      restmapper.NewDeferredDiscoveryRESTMapper(cached),
			InformersStarted:                make(chan struct{}),
			ResyncPeriod:                    resync,
			ControllerManagerMetrics:        controllersmetrics.NewControllerManagerMetrics(kubeControllerManager),
		},
		metadata:  metadataInformers,
		discovery: cached,
	}
	if cc.GarbageCollectorController.EnableGarbageCollector && k.cc.IsControllerEnabled(app.NewControllerDescriptors()[names.GarbageCollectorController]) {
		ignored := map[schema.GroupResource]struct{}{}
		for _, r := range cc.GarbageCollectorController.GCIgnoredResources {
			ignored[schema.GroupResource{Group: r.Group, Resource: r.Resource}] = struct{}{}
		}
		k.cc.GraphBuilder = garbagecollector.NewDependencyGraphBuilder(ctx, metadataClient, k.cc.RESTMapper, ignored,
			k.cc.ObjectOrMetadataInformerFactory, k.cc.InformersStarted)
	}
	controllersmetrics.Register()
	return k, nil
}

// resetRESTMapper resets k's RESTMapper every restMapperResetPeriod until
// ctx ends, as kube-controller-manager's CreateControllerContext does.
func (k *kcm) resetRESTMapper(ctx context.Context) {
	wait.UntilWithContext(ctx, func(context.Context) { k.cc.RESTMapper.Reset() }, restMapperResetPeriod)
}

// shutdown stops k's informer factories and waits for their goroutines.
func (k *kcm) shutdown() {
	k.cc.InformerFactory.Shutdown()
	k.metadata.Shutdown()
}

// defaultComponentConfig is kube-controller-manager's default component
// configuration as NewKubeControllerManagerOptions makes it: the
// v1alpha1 defaults (options.NewDefaultComponentConfig) and the garbage
// collector's default ignored resources. Computed once: it is read-only.
var defaultComponentConfig = sync.OnceValues(func() (kubectrlmgrconfig.KubeControllerManagerConfiguration, error) {
	c, err := options.NewDefaultComponentConfig()
	if err != nil {
		return c, fmt.Errorf("kube-controller-manager default configuration: %w", err)
	}
	ignored := garbagecollector.DefaultIgnoredResources()
	c.GarbageCollectorController.GCIgnoredResources = make([]gcconfig.GroupResource, 0, len(ignored))
	for r := range ignored {
		c.GarbageCollectorController.GCIgnoredResources = append(c.GarbageCollectorController.GCIgnoredResources, gcconfig.GroupResource{Group: r.Group, Resource: r.Resource})
	}
	slices.SortFunc(c.GarbageCollectorController.GCIgnoredResources, func(a, b gcconfig.GroupResource) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Resource, b.Resource))
	})
	return c, nil
})

// componentConfig is the default component configuration with enabled
// as its --controllers list.
func componentConfig(enabled []string) (kubectrlmgrconfig.KubeControllerManagerConfiguration, error) {
	c, err := defaultComponentConfig()
	if err != nil {
		return c, err
	}
	c.Generic.Controllers = slices.Clone(enabled)
	return c, nil
}

// resyncPeriod is the informers' default resync period.
// kube-controller-manager draws MinResyncPeriod × [1, 2) at random
// (app.ResyncPeriod). A run has no randomness outside its seed. So it is
// MinResyncPeriod (12 h by default), the range's lower end.
func resyncPeriod(c kubectrlmgrconfig.KubeControllerManagerConfiguration) func() time.Duration {
	d := c.Generic.MinResyncPeriod.Duration
	return func() time.Duration { return d }
}

// kcmConfig is cfg as kube-controller-manager's options.Config sets up its
// kubeconfig: no compression, the client connection's content types, QPS
// and burst. Warnings are dropped per client (kube-controller-manager
// drops them process-wide).
func kcmConfig(cfg *rest.Config, c kubectrlmgrconfig.KubeControllerManagerConfiguration) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.DisableCompression = true
	out.AcceptContentTypes = c.Generic.ClientConnection.AcceptContentTypes
	out.ContentType = c.Generic.ClientConnection.ContentType
	out.QPS = c.Generic.ClientConnection.QPS
	out.Burst = int(c.Generic.ClientConnection.Burst)
	out.WarningHandler = rest.NoWarnings{}
	return out
}

// clientBuilder is kube-controller-manager's SimpleControllerClientBuilder
// (clientbuilder), with the User-Agent kube-controller-manager sends: the
// rest.AddUserAgent the original uses names the running binary instead.
// It never fails, so its OrDie methods never exit.
type clientBuilder struct{ base *rest.Config }

// Config returns base as the client of controller name.
func (b clientBuilder) Config(name string) (*rest.Config, error) {
	c := rest.CopyConfig(b.base)
	c.UserAgent = userAgent(name)
	return c, nil
}

// ConfigOrDie is Config.
func (b clientBuilder) ConfigOrDie(name string) *rest.Config {
	c, _ := b.Config(name)
	return c
}

// Client returns a clientset of controller name.
func (b clientBuilder) Client(name string) (clientset.Interface, error) {
	c, _ := b.Config(name)
	cs, err := clientset.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("client of %s: %w", name, err)
	}
	return cs, nil
}

// ClientOrDie is Client; a client it cannot make is nil.
func (b clientBuilder) ClientOrDie(name string) clientset.Interface {
	c, err := b.Client(name)
	if err != nil {
		return nil
	}
	return c
}

// DiscoveryClient returns a discovery client of controller name, with the
// QPS and burst SimpleControllerClientBuilder gives discovery.
func (b clientBuilder) DiscoveryClient(name string) (discovery.DiscoveryInterface, error) {
	c, _ := b.Config(name)
	c.Burst = 200
	c.QPS = 20
	cs, err := clientset.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("discovery client of %s: %w", name, err)
	}
	return cs, nil
}

// DiscoveryClientOrDie is DiscoveryClient; one it cannot make is nil.
func (b clientBuilder) DiscoveryClientOrDie(name string) discovery.DiscoveryInterface {
	c, err := b.DiscoveryClient(name)
	if err != nil {
		return nil
	}
	return c
}

// userAgent is the User-Agent kube-controller-manager's client of
// controller name sends: "kube-controller-manager/v1.37.2 (linux/amd64)
// kubernetes/unknown/statefulset-controller" (a module build has no git
// commit: client-go writes "unknown" then).
func userAgent(name string) string {
	return fmt.Sprintf("%s/%s (%s/%s) kubernetes/unknown/%s", kubeControllerManager, KubernetesVersion(), runtime.GOOS, runtime.GOARCH, name)
}

// KubernetesVersion returns the version of k8s.io/kubernetes this binary
// was built with ("v1.37.2"), or "unknown" when neither its build
// information nor its source paths say.
func KubernetesVersion() string { return kubernetesVersion() }

// modulePath finds k8s.io/kubernetes's version in a source file's path
// (".../k8s.io/kubernetes@v1.37.2/cmd/...", with or without -trimpath).
var modulePath = regexp.MustCompile(`k8s\.io/kubernetes@(v[^/]+)/`)

// kubernetesVersion reads KubernetesVersion once: from the build
// information's dependencies, else (a test binary lists none) from the
// source path of one of k8s.io/kubernetes's functions.
var kubernetesVersion = sync.OnceValue(func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path != "k8s.io/kubernetes" {
				continue
			}
			if m.Replace != nil && m.Replace.Version != "" {
				return m.Replace.Version
			}
			return m.Version
		}
	}
	if f := runtime.FuncForPC(reflect.ValueOf(app.NewControllerDescriptors).Pointer()); f != nil {
		file, _ := f.FileLine(f.Entry())
		if m := modulePath.FindStringSubmatch(file); m != nil {
			return m[1]
		}
	}
	return "unknown"
})
