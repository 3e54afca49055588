package crtarget

import (
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// A manager counts as synced once every informer its cache made has
// synced. controller-runtime's own look is WaitForCacheSync with a
// cancelled context. It selects at random between "started" and "done" in
// each of its informer maps (pkg/cache/internal/informers.go,
// waitForStarted), one per ByObject kind and namespace. So it answers true
// with a chance of 2^-n however synced the cache is.
//
// Every informer the cache makes comes from cache.Options.NewInformer:
//   - in every ByObject, namespaced or cluster sub-cache;
//   - typed, unstructured or of metadata only;
//   - for a For, Owns or Watches kind, or lazily for a Get or List of a new
//     kind.
//
// informerSet wraps it (through manager.Options.NewCache) and keeps each.
// So the look asks each informer's HasSynced, in no random order.
// An informer made later (a Get of a new kind) counts from then on; one
// stopped (RemoveInformer) no longer does. A kind cached in several
// namespaces counts as synced once its informer of each has.

// informerSet keeps the informers a manager's cache made.
type informerSet struct {
	scheme *runtime.Scheme

	mu   sync.Mutex
	all  []keptInformer
	opts cache.Options // the options the cache was built with
	made bool          // the cache was built
}

// keptInformer is one informer of a cache, of a kind and form.
type keptInformer struct {
	inf  toolscache.SharedIndexInformer
	gvk  schema.GroupVersionKind
	form string
	want int // how many informers of the kind and form the cache makes
}

// informerKey names the informers of a kind in a form.
type informerKey struct {
	gvk  schema.GroupVersionKind
	form string
}

// newCacheFunc returns a manager.Options.NewCache that builds the cache
// with inner (cache.New when nil). It builds from options whose
// NewInformer keeps each informer in s. That NewInformer wraps the
// options' own, or client-go's NewSharedIndexInformer.
func (s *informerSet) newCacheFunc(inner cache.NewCacheFunc) cache.NewCacheFunc {
	if inner == nil {
		inner = cache.New
	}
	return func(config *rest.Config, opts cache.Options) (cache.Cache, error) {
		newInformer := opts.NewInformer
		if newInformer == nil {
			newInformer = toolscache.NewSharedIndexInformer
		}
		s.mu.Lock()
		s.scheme, s.opts, s.made = opts.Scheme, opts, true
		s.mu.Unlock()
		opts.NewInformer = func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
			inf := newInformer(lw, obj, resync, indexers)
			s.keep(inf, obj)
			return inf
		}
		return inner(config, opts)
	}
}

// keep records inf, an informer of obj's kind and form.
func (s *informerSet) keep(inf toolscache.SharedIndexInformer, obj runtime.Object) {
	if inf == nil {
		return
	}
	s.mu.Lock()
	scheme, opts := s.scheme, s.opts
	s.mu.Unlock()
	k := keptInformer{inf: inf, form: formOf(obj), want: 1}
	if gvk, err := apiutil.GVKForObject(obj, scheme); err == nil {
		k.gvk = gvk
		k.want = namespaces(opts, obj, gvk)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, k)
}

// namespaces returns how many informers of obj's kind (gvk) a cache of opts
// makes, one after another. It makes one per namespace opts cache the kind
// in (ByObject.Namespaces, else DefaultNamespaces). It makes one for a kind
// cluster-scoped or cached in every namespace. controller-runtime's
// multi-namespace cache makes them in turn, each once the one before has
// synced (a source's GetInformer blocks until then). So the first to sync
// is not the last. The RESTMapper knows the kind already: the cache asked it
// before making the informer.
func namespaces(opts cache.Options, obj runtime.Object, gvk schema.GroupVersionKind) int {
	ns := opts.DefaultNamespaces
	if b, ok := byObjectOf(opts, gvk); ok && b.Namespaces != nil {
		ns = b.Namespaces
	}
	if len(ns) <= 1 || opts.Mapper == nil {
		return 1
	}
	if namespaced, err := apiutil.IsObjectNamespaced(obj, opts.Scheme, opts.Mapper); err != nil || !namespaced {
		return 1
	}
	return len(ns)
}

// synced reports whether every informer kept and not stopped has synced
// (false before the cache started: an informer not running has not).
func (s *informerSet) synced() bool {
	s.mu.Lock()
	all := append([]keptInformer(nil), s.all...)
	s.mu.Unlock()
	made := map[informerKey]int{}
	for _, k := range all {
		if !k.inf.HasSynced() && !k.inf.IsStopped() {
			return false
		}
		made[informerKey{k.gvk, k.form}]++
	}
	for _, k := range all {
		if made[informerKey{k.gvk, k.form}] < k.want {
			return false // a namespace's informer of the kind is still to come
		}
	}
	return true
}

// of returns the informers kept of gvk in form, in the order made.
func (s *informerSet) of(gvk schema.GroupVersionKind, form string) []toolscache.SharedIndexInformer {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []toolscache.SharedIndexInformer
	for _, k := range s.all {
		if k.gvk == gvk && k.form == form {
			out = append(out, k.inf)
		}
	}
	return out
}

// formOf says whether obj is typed, unstructured or metadata only: the
// cache keeps one informer of a kind for each.
func formOf(obj runtime.Object) string {
	switch obj.(type) {
	case *unstructured.Unstructured, *unstructured.UnstructuredList:
		return "unstructured"
	case *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList:
		return "metadata"
	}
	return "typed"
}

// unionInformer is the informer of a kind the cache keeps in several
// namespaces (DefaultNamespaces, ByObject.Namespaces), as the probe needs
// it. The informer controller-runtime makes of the kind adds a handler to
// each namespace's informer, and has synced once all have. Its store is theirs
// together. Only the probe's methods are given: AddEventHandler, HasSynced
// and GetStore (List).
type unionInformer struct {
	toolscache.SharedInformer // nil: no other method is called
	inf                       cache.Informer
	parts                     []toolscache.SharedIndexInformer
}

// AddEventHandler adds h to every namespace's informer.
func (u *unionInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return u.inf.AddEventHandler(h)
}

// HasSynced reports whether every namespace's informer has synced.
func (u *unionInformer) HasSynced() bool { return u.inf.HasSynced() }

// GetStore returns the namespaces' stores as one.
func (u *unionInformer) GetStore() toolscache.Store { return unionStore{parts: u.parts} }

// unionStore lists the stores of several informers as one, sorted by key
// (the informers' order is the cache's map order). Only List is given.
type unionStore struct {
	toolscache.Store // nil: no other method is called
	parts            []toolscache.SharedIndexInformer
}

// List returns every object of every part's store, by key.
func (s unionStore) List() []any {
	var out []any
	for _, p := range s.parts {
		out = append(out, p.GetStore().List()...)
	}
	keys := make([]string, len(out))
	for i, o := range out {
		keys[i], _ = toolscache.MetaNamespaceKeyFunc(o)
	}
	sort.Sort(byKey{keys: keys, items: out})
	return out
}

// byKey sorts items by keys.
type byKey struct {
	keys  []string
	items []any
}

func (b byKey) Len() int           { return len(b.keys) }
func (b byKey) Less(i, j int) bool { return b.keys[i] < b.keys[j] }
func (b byKey) Swap(i, j int) {
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
	b.items[i], b.items[j] = b.items[j], b.items[i]
}
