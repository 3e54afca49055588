// Package crtarget runs controller-runtime managers as lwreplay fuzz
// targets. A manager runs on a run's replay (env.Config), inside the run's
// synctest bubble. Its cache's informer of the run's resource is wired into
// the run's probe. So the run knows when the manager's cache synced and
// what it holds, and ends once the controller is quiet.
//
// It is a module of its own (github.com/lwreplay/lwreplay/fuzz/crtarget),
// so that a client-go-only user of lwreplay does not get
// controller-runtime in their module graph. This one pins
// controller-runtime v0.23, which runs on the client-go (v0.35)
// lwreplay's go.mod requires. CI runs it on v0.24 (client-go v0.36) and
// v0.25 (v0.37) too (.ci/crtarget-matrix).
//
// Typical use, in a controller's fuzz test:
//
//	var target = crtarget.Target("my-controller", "my reconciler on configmaps",
//		func(mgr manager.Manager) error {
//			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).
//				WithOptions(crtarget.ControllerOptions()).Complete(&MyReconciler{Client: mgr.GetClient()})
//		})
//
//	func FuzzMyController(f *testing.F) {
//		fuzz.Run(f, fuzz.Options{Cassettes: fuzz.Glob("testdata/*.yaml"), Target: target,
//			Extra: crtarget.Invariants(), Known: crtarget.KnownFindings()})
//	}
//
// A controller built without WithOptions (an operator's own
// SetupWithManager) works as well: the manager skips name validation for
// all its controllers. Extra: crtarget.Invariants() adds
// last-reconcile-succeeded, which judges how the manager's reconciles
// ended (docs/controllers.md).
package crtarget

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/harness"
)

// ErrWire says a manager's cache could not be wired into a run's probe.
var ErrWire = errors.New("crtarget: wire the manager's cache into the probe")

// NewManager returns a manager on env.Config with what a run needs:
//   - no metrics server and no health probes (a run listens on no port);
//   - no leader election unless opts asks for it;
//   - controller name validation skipped, since every run of a process
//     builds the same controllers and controller-runtime refuses a name
//     seen before (opts.Controller's other settings are kept);
//   - its cache wired into env.Probe: the informer of env.Resource (store,
//     handler notifications);
//   - synced once every informer the cache made has (informerSet, through
//     opts.NewCache, which it wraps) and every controller added has started
//     its sources (runManager, the manager returned, which wraps
//     controller-runtime's);
//   - its store compared through the cache's transform (storeTransform).
//
// Its logger (opts.Logger, or controller-runtime's log.Log) goes through a
// sink that records how each reconcile ends (Reconciles, exposed for
// LastReconcileSucceeded). The run ends early only once every key whose
// last reconcile failed has failed settleAfter times in a row.
//
// With opts.LeaderElection the manager creates and renews its Lease (or
// the lock opts names) through the replay's write engine. That engine
// serves the resource from empty. The manager starts its controllers once
// it holds the lock: on the first try, some 100 ms (virtual) in. Each
// renewal is a request, and a run ends early only after a second with none.
// controller-runtime's default RetryPeriod (2 s) leaves that second between
// renewals. One of 1 s or less keeps every run going to the watchdog
// (15 minutes, virtual; some 1800 renewals at 500 ms, about 2 s of real
// time).
func NewManager(env *fuzz.Env, opts manager.Options) (manager.Manager, error) {
	opts.Metrics = metricsserver.Options{BindAddress: "0"}
	opts.HealthProbeBindAddress = "0"
	skip := true
	opts.Controller.SkipNameValidation = &skip
	opts.Cache = ownCacheOptions(opts.Cache)
	rec, starts := newReconciles(env.Probe.Elapsed), newControllerStarts()
	opts.Logger = reconcileLogger(opts.Logger, rec, starts)
	set, stop := &informerSet{}, &stopSignal{}
	opts.NewCache = releasing(set.newCacheFunc(opts.NewCache), stop, env.GivenUp())
	inner, err := manager.New(env.Config, opts)
	if err != nil {
		return nil, err
	}
	mgr := &runManager{Manager: inner, controllers: starts, rec: rec, stop: stop}
	if err := mgr.Add(stopWatch{rec: rec}); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWire, err)
	}
	if err := wire(env, mgr, set); err != nil {
		return nil, err
	}
	env.Probe.Expose(rec)
	env.Probe.SetSettled(rec.settled)
	env.Probe.SetRetryDue(rec.retryDue)
	return mgr, nil
}

// ownCacheOptions returns c with maps of its own. controller-runtime's
// cache.New fills in the entries of ByObject, DefaultNamespaces and each
// ByObject's Namespaces. And every run of a target builds its manager from
// the one opts a campaign holds; runs may be concurrent.
func ownCacheOptions(c cache.Options) cache.Options {
	c.DefaultNamespaces = maps.Clone(c.DefaultNamespaces)
	if c.ByObject != nil {
		by := make(map[client.Object]cache.ByObject, len(c.ByObject))
		for obj, b := range c.ByObject {
			b.Namespaces = maps.Clone(b.Namespaces)
			by[obj] = b
		}
		c.ByObject = by
	}
	return c
}

// ControllerOptions are the options of a controller built in a run:
// name validation skipped, as NewManager's manager sets for all of them.
func ControllerOptions() controller.Options {
	skip := true
	return controller.Options{SkipNameValidation: &skip}
}

// Target is a fuzz.Target that builds a manager with NewManager, lets
// setup add the controllers under test to it, and runs it until the run
// stops it. Its client path is the run's. The manager's reflectors follow
// client-go's WatchListClient gate, which the run sets
// (fuzz.Target.WatchListGate). It is a Pod's container
// (fuzz.Target.Container): an error from the manager's Start is an exit
// the run restarts it after, as the kubelet would.
func Target(name, doc string, setup func(manager.Manager) error) fuzz.Target {
	return TargetWithOptions(name, doc, manager.Options{}, setup)
}

// TargetWithOptions is Target with the manager built from opts: a Scheme
// that registers a custom resource's Go type, cache options, leader
// election. It builds through NewManager, which sets the metrics, health
// probe and controller options a run needs over opts'. Each run builds its
// manager from a copy of opts. What opts points to (the scheme) is shared
// by every run and must not change once the campaign starts.
func TargetWithOptions(name, doc string, opts manager.Options, setup func(manager.Manager) error) fuzz.Target {
	return fuzz.Target{Name: name, Doc: doc, WatchListGate: true, Container: true, RetryBound: RetryBound, Run: func(ctx context.Context, env *fuzz.Env) error {
		mgr, err := NewManager(env, opts)
		if err != nil {
			return setupError(err)
		}
		if err := setup(mgr); err != nil {
			return setupError(err)
		}
		// An operator's main exits when Start returns an error, such as
		// a cache that did not sync within CacheSyncTimeout. The kubelet
		// restarts its container (Container).
		return mgr.Start(ctx)
	}}
}

// RetryBound is a Target's retry bound (fuzz.Target.RetryBound):
// controller-runtime gives a controller whose options set no RateLimiter
// client-go's default, which backs a failing key off to 1000 s
// (harness.ControllerRetryBound). A run of a Target that reaches its end
// with a failed key's retry due goes on until just past it, at most that
// long more (Reconciles' retry due, through Probe.SetRetryDue).
var RetryBound = harness.ControllerRetryBound

// setupError is err wrapping fuzz.ErrTarget: a manager that could not be
// built is the test's failure, not an exit the kubelet would restart.
func setupError(err error) error {
	if errors.Is(err, fuzz.ErrTarget) {
		return err
	}
	return fmt.Errorf("%w: %w", fuzz.ErrTarget, err)
}

// wire registers the probe with mgr's informer of env.Resource: the typed
// informer of a kind mgr's scheme knows, else an unstructured one. The run
// counts the manager synced once every informer of its cache (set) is and
// every controller of it started its sources. It compares the store
// through the cache's transform.
func wire(env *fuzz.Env, mgr *runManager, set *informerSet) error {
	starts := mgr.controllers
	set.mu.Lock()
	made, cacheOpts := set.made, set.opts
	set.mu.Unlock()
	if !made {
		return fmt.Errorf("%w: the manager did not build its cache through Options.NewCache", ErrWire)
	}
	res := env.Resource
	gvk := schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind}
	var obj client.Object
	if o, err := mgr.GetScheme().New(gvk); err == nil {
		if co, ok := o.(client.Object); ok {
			obj = co
		}
	}
	if obj == nil {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		obj = u
	}
	inf, err := mgr.GetCache().GetInformer(context.Background(), obj) // before Start: registers, does not wait
	if err != nil {
		return fmt.Errorf("%w: informer of %s: %w", ErrWire, gvk, err)
	}
	si, ok := inf.(toolscache.SharedInformer)
	if !ok {
		// a kind cached in several namespaces: one informer each
		parts := set.of(gvk, formOf(obj))
		if len(parts) == 0 {
			return fmt.Errorf("%w: the informer of %s is a %T, and the cache made no client-go informer of it", ErrWire, gvk, inf)
		}
		si = &unionInformer{inf: inf, parts: parts}
	}
	reg, err := env.Probe.AddEventHandler(si, nil)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrWire, err)
	}
	// synced once every informer of the manager's cache is, not the run's
	// resource's alone. A controller that Owns or Watches other kinds is not
	// quiet while one of those still lists.
	env.Probe.SetSynced(func() bool { return si.HasSynced() && reg.HasSynced() && set.synced() && starts.allStarted() })
	if fn := storeTransform(cacheOpts, gvk); fn != nil {
		env.Probe.SetStoreTransform(fn)
	}
	return nil
}
