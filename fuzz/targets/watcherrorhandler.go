package targets

import (
	"context"
	"fmt"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/fuzz/harness"
)

// WatchErrors counts the errors a watch error handler was given: the
// informer-watch-error-handler target hands its own to Probe.Expose, for
// user invariants to judge. It is safe for concurrent use.
type WatchErrors struct {
	n atomic.Int64
}

// Count returns how many errors the handler was given.
func (w *WatchErrors) Count() int {
	return int(w.n.Load())
}

// runInformerWatchErrorHandler runs a SharedIndexInformer whose only
// handler is the probe's recording one. Its watch error handler counts the
// errors it is given, logs nothing and returns at once. So does a custom
// handler that reports errors elsewhere (a metric). client-go keeps its
// own behaviour around the handler: "The WatchErrorHandler is called
// whenever ListAndWatch drops the connection with an error. After calling
// this handler, the informer will backoff and retry." So the informer
// converges as one with the default handler does. The probe has no record
// of such calls: Probe.Error is for errors the target failed on, which
// clean-stop judges. So the count is exposed instead.
func runInformerWatchErrorHandler(ctx context.Context, env *harness.Env) error {
	return informerWatchErrorHandler(ctx, env, nil)
}

// informerWatchErrorHandler is runInformerWatchErrorHandler; then, when
// set, is called by the watch error handler once it counted an error (a
// test's planted bug).
func informerWatchErrorHandler(ctx context.Context, env *harness.Env, then func(context.Context, error)) error {
	lw, err := env.SharedListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	inf := cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, 0, cache.Indexers{})
	errs := &WatchErrors{}
	err = inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, _ *cache.Reflector, err error) {
		errs.n.Add(1)
		if then != nil {
			then(ctx, err)
		}
	})
	if err != nil {
		return fmt.Errorf("%w: set watch error handler: %w", harness.ErrTarget, err)
	}
	env.Probe.Expose(errs)
	if _, err := env.Probe.AddEventHandler(inf, nil); err != nil {
		return err
	}
	inf.RunWithContext(ctx)
	return nil
}
