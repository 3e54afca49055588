// Package capture drives real client-go informers against a cluster, so
// that a recorder captures exactly the list/watch traffic a reflector
// makes. It resolves resource names through discovery. It runs one informer
// per resource over a dynamic client whose transport the recorder wraps. It
// reports progress until its context ends or its duration passes.
//
// Typical use:
//
//	rec, err := recorder.New("incident.yaml")
//	p, err := capture.Run(ctx, capture.Config{RestConfig: cfg, Resources: []string{"pods", "deployments.apps"}, Recorder: rec})
//	err = rec.Close()
package capture

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/recorder"
)

// Errors Run and Resolve wrap.
var (
	// ErrConfig says the Config is unusable.
	ErrConfig = errors.New("bad capture config")
	// ErrDiscovery says the server's discovery answers could not be read.
	ErrDiscovery = errors.New("discovery failed")
	// ErrUnknownResource says a resource name matches nothing the server
	// serves.
	ErrUnknownResource = errors.New("unknown resource")
	// ErrNotWatchable says a resource cannot be listed and watched.
	ErrNotWatchable = errors.New("resource cannot be listed and watched")
	// ErrWatchList says WatchList could not be turned on.
	ErrWatchList = errors.New("cannot turn WatchList on")
)

// Config says what to record and how.
type Config struct {
	// RestConfig reaches the cluster. Run wraps a copy of it with the
	// recorder; it is not changed.
	RestConfig *rest.Config
	// Resources are resource names as kubectl takes them (see Resolve).
	Resources []string
	// Namespace restricts namespaced resources to one namespace; ""
	// records all namespaces. Cluster-scoped resources ignore it.
	Namespace string
	// LabelSelector and FieldSelector filter every LIST and WATCH.
	LabelSelector, FieldSelector string
	// WatchList says how the informers get their initial state ("" is
	// WatchListAuto).
	WatchList WatchListMode
	// PageSize, when positive, has every LIST ask for pages of this many
	// objects, the first one as a consistent read (see newListWatcher).
	PageSize int64
	// Duration, when positive, ends the recording this long after the
	// informers start; otherwise it runs until ctx ends.
	Duration time.Duration
	// Recorder, when set, records the traffic: discovery, LIST and WATCH.
	Recorder *recorder.Recorder
	// Progress, when set, is called every ProgressInterval and once at the
	// end, from Run's goroutine.
	Progress func(Progress)
	// ProgressInterval is how often Progress is called (default 1 s).
	ProgressInterval time.Duration
}

// ResourceProgress is one informer's state.
type ResourceProgress struct {
	// Target is the resource.
	Target Target
	// Synced says whether the informer has its initial state.
	Synced bool
	// LastSyncRV is the newest resourceVersion the informer has seen.
	LastSyncRV string
	// Objects is the number of objects in the informer's store.
	Objects int
	// LastError is the newest list or watch error, "" if none.
	LastError string
}

// Progress is what a recording has seen so far.
type Progress struct {
	// Elapsed is the time since the informers started.
	Elapsed time.Duration
	// Resources holds one entry per resolved resource, in argument order.
	Resources []ResourceProgress
	// Stats is what the recorder has captured (zero without one).
	Stats recorder.Stats
}

// Run resolves c.Resources, runs one informer per resource until ctx ends
// or c.Duration passes, stops them and returns the last progress. The end
// of ctx is the normal end: Run then returns a nil error. It does not close
// the recorder.
func Run(ctx context.Context, c Config) (Progress, error) {
	mode, err := ParseWatchListMode(string(c.WatchList))
	if err != nil {
		return Progress{}, err
	}
	switch {
	case c.RestConfig == nil:
		return Progress{}, fmt.Errorf("%w: no rest config", ErrConfig)
	case len(c.Resources) == 0:
		return Progress{}, fmt.Errorf("%w: no resources", ErrConfig)
	case c.PageSize < 0 || c.Duration < 0 || c.ProgressInterval < 0:
		return Progress{}, fmt.Errorf("%w: negative page size, duration or progress interval", ErrConfig)
	}
	cfg := rest.CopyConfig(c.RestConfig)
	if c.Recorder != nil {
		cfg.Wrap(c.Recorder.Wrap)
	}
	if mode == WatchListOn {
		if err := enableWatchList(); err != nil {
			return Progress{}, err
		}
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return Progress{}, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	targets, err := Resolve(ctx, memory.NewMemCacheClient(dc), c.Resources)
	if err != nil {
		return Progress{}, err
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return Progress{}, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	o := listOptions{
		namespace:     c.Namespace,
		labelSelector: c.LabelSelector,
		fieldSelector: c.FieldSelector,
		pageSize:      c.PageSize,
		noWatchList:   mode == WatchListOff || (mode == WatchListAuto && c.PageSize > 0),
	}
	r := &run{c: c, targets: targets, errs: make([]string, len(targets)), start: time.Now()}
	if c.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Duration)
		defer cancel()
	}
	var wg sync.WaitGroup
	for i, t := range targets {
		inf := cache.NewSharedIndexInformerWithOptions(newListWatcher(client, t, o), &unstructured.Unstructured{},
			cache.SharedIndexInformerOptions{ObjectDescription: t.String()})
		if err := inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, _ *cache.Reflector, err error) {
			if ctx.Err() == nil {
				r.setError(i, err)
			}
		}); err != nil {
			return Progress{}, fmt.Errorf("%w: %s: %v", ErrConfig, t, err)
		}
		r.informers = append(r.informers, inf)
	}
	for _, inf := range r.informers {
		wg.Go(func() { inf.RunWithContext(ctx) })
	}
	return r.wait(ctx, &wg), nil
}

// run is one recording's informers and their errors.
type run struct {
	c         Config
	targets   []Target
	informers []cache.SharedIndexInformer
	start     time.Time

	mu   sync.Mutex
	errs []string
}

func (r *run) setError(i int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs[i] = err.Error()
}

// wait reports progress until ctx ends, then waits for the informers to
// stop and reports the last progress.
func (r *run) wait(ctx context.Context, wg *sync.WaitGroup) Progress {
	every := r.c.ProgressInterval
	if every == 0 {
		every = time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			p := r.progress()
			if r.c.Progress != nil {
				r.c.Progress(p)
			}
			return p
		case <-tick.C:
			if r.c.Progress != nil {
				r.c.Progress(r.progress())
			}
		}
	}
}

// progress takes a snapshot of the informers and the recorder.
func (r *run) progress() Progress {
	p := Progress{Elapsed: time.Since(r.start), Resources: make([]ResourceProgress, len(r.targets))}
	if r.c.Recorder != nil {
		p.Stats = r.c.Recorder.Stats()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, inf := range r.informers {
		p.Resources[i] = ResourceProgress{
			Target:     r.targets[i],
			Synced:     inf.HasSynced(),
			LastSyncRV: inf.LastSyncResourceVersion(),
			Objects:    len(inf.GetStore().ListKeys()),
			LastError:  r.errs[i],
		}
	}
	return p
}
