package crtarget

import (
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/harness"
)

// crModule is controller-runtime's module path.
const crModule = "sigs.k8s.io/controller-runtime"

// knownFindings are controller-runtime bugs a run of a manager meets, each
// known upstream, with the controller-runtime minor versions whose source
// has it.
var knownFindings = []struct {
	known  fuzz.Known
	minors []string
}{
	{known: fuzz.Known{Name: "controller-runtime#3538",
		Doc:        "the priority queue hands a ready item to a worker that has already returned on shutdown: its handleReadyItems goroutine blocks on the unbuffered send for ever (fixed by kubernetes-sigs/controller-runtime#3540: the send selects on done)",
		Site:       "sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue).handleReadyItems",
		Invariants: []string{"clean-stop"}},
		minors: []string{"v0.23", "v0.24"}}, // priorityqueue.go: a bare `w.get <- *item` in v0.23.3 and v0.24.1; v0.25.2 selects on w.done
	{known: fuzz.Known{Name: "controller-runtime#3440",
		Doc:        "a manager stopped before every runnable has signalled ready busy-loops in runnableGroup.Start: the wait selects on the closed ctx.Done() and never returns on it, so the loop runs until the caches sync (for ever if they never do); the fix proposed in kubernetes-sigs/controller-runtime#3440 was closed unmerged",
		Site:       "sigs.k8s.io/controller-runtime/pkg/manager.(*runnableGroup).Start",
		Invariants: []string{"no-spin"}},
		minors: []string{"v0.23", "v0.24", "v0.25"}}, // runnable_group.go: `case <-ctx.Done():` sets retErr and loops, in v0.23.3, v0.24.1 and v0.25.2
	{known: fuzz.Known{Name: "kubernetes#113254",
		Doc:        "apimachinery's watch.Filter blocks for ever on its unbuffered send once the reflector reading it has stopped, and its goroutine is left (controller-runtime wraps a metadata-only informer's watch in it: newGVKFixupWatcher); open upstream, the fix proposed in kubernetes#139321 was closed",
		Site:       "k8s.io/apimachinery/pkg/watch.(*filteredWatch).loop",
		Invariants: []string{"clean-stop"}},
		minors: []string{"v0.23", "v0.24", "v0.25"}}, // cache/internal/informers.go: `return watch.Filter(` in v0.23.3, v0.24.1, v0.25.0 and v0.25.2; watch/filter.go: a bare `fw.result <- filtered`
	{known: fuzz.Known{Name: WatchListStop,
		Doc:        "client-go's Reflector.watchList waits out its backoff after a retriable error (429, connection refused) without selecting on the stop, up to 60 s: a manager stopped meanwhile fails its 30 s grace period (found by lwreplay; not filed yet, docs/bugs-found.md)",
		Site:       "k8s.io/client-go/tools/cache.(*Reflector).watchList.func1",
		Invariants: []string{"clean-stop"}},
		minors: []string{"v0.23", "v0.24", "v0.25"}}, // client-go v0.35.10 reflector.go:725, v0.36.2 and v0.37.2 :817: a bare receive on the delay, in the closure isErrorRetriableWithSideEffectsFn
}

// WatchListStop names the known finding of client-go's WatchList backoff,
// which a stopped reflector waits out (docs/bugs-found.md).
const WatchListStop = "client-go: a stopped Reflector waits out its WatchList backoff"

func init() {
	// controller-runtime#3538 seen from the other goroutines. The blocked send
	// holds w.lock, so every goroutine that takes it next waits for ever. The
	// run's clock stops with nothing running (no-spin, Locked). Which of them
	// is the site depends on which waits.
	for _, fn := range []string{"handleAddBuffer", "handleWaitingItems", "GetWithPriority", "Len", "logState"} {
		knownFindings = append(knownFindings, struct {
			known  fuzz.Known
			minors []string
		}{known: fuzz.Known{Name: "controller-runtime#3538",
			Doc:        "the priority queue's handleReadyItems blocks for ever on a send holding the queue's lock (see the clean-stop form); " + fn + " waits for that lock for ever",
			Site:       "sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue.(*priorityqueue)." + fn,
			Invariants: []string{"no-spin"}},
			minors: []string{"v0.23", "v0.24"}})
	}
}

// KnownFindings returns the known bugs of the controller-runtime this
// binary is built with, for fuzz.Options.Known. A run that breaks an
// invariant only as one of them does is logged and counted, not failed.
func KnownFindings() []fuzz.Known {
	v := controllerRuntimeVersion()
	var out []fuzz.Known
	for _, k := range knownFindings {
		for _, m := range k.minors {
			if v == m || strings.HasPrefix(v, m+".") {
				out = append(out, k.known)
			}
		}
	}
	return out
}

// controllerRuntimeVersion is the version of controller-runtime the binary
// is built with ("unknown" when it cannot tell).
func controllerRuntimeVersion() string { return harness.ModuleVersion(crModule, manager.New) }
