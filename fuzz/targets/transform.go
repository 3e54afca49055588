package targets

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/fuzz/harness"
)

// managedFields is the field the informer-transform target's transform
// strips, as a dotted path (its Target.StoreOmits).
const managedFields = "metadata.managedFields"

// runInformerTransform runs a SharedIndexInformer with a resync period of
// ResyncPeriod. Its TransformFunc strips metadata.managedFields
// (stripManagedFields), and its only handler is the probe's recording one.
// That is the transform most controllers set, to save the memory of a field
// they never read.
//
// client-go documents what it does with it:
//   - "The TransformFunc is called for each object which is about to be
//     stored" (SharedInformer.SetTransform);
//   - "will be called on all objects before they will be put into the Store
//     and corresponding Add/Modify/Delete handlers will be invoked for them"
//     (controller.go, InformerOptions.Transform);
//   - "TransformFunc sees the object before any other actor, and it is now
//     safe to mutate the object in place instead of making a copy", and
//     "It's recommended for the TransformFunc to be idempotent. It MUST be
//     idempotent if objects already present in the cache are passed to the
//     Replace() to avoid re-mutating them. Default informers do not pass
//     existing objects to Replace though." (delta_fifo.go, TransformFunc).
//
// A resync hands the handler the stored, already transformed object again
// without a second call ("If obj is a DeletedFinalStateUnknown tombstone or
// the action is a Sync, then the object have already gone through the
// transformer"). On the WatchList path the reflector's temporary store
// transforms each streamed object before the queue's Replace transforms it
// again (reflector.go, watchList). So an idempotent transform stores what
// one call makes.
//
// Its store holds each object without managedFields, every other field as
// served. So the run compares it with the truth's objects without them
// (Target.StoreOmits). The transform changes objects in place. So the
// informer lists and watches through env.ListerWatcher, whose typed level
// hands out copies, not the decoded objects the cassette's runs share.
func runInformerTransform(ctx context.Context, env *harness.Env) error {
	return informerTransform(ctx, env, stripManagedFields)
}

// informerTransform is runInformerTransform with transform as the
// informer's TransformFunc (a test's planted one, or stripManagedFields).
func informerTransform(ctx context.Context, env *harness.Env, transform cache.TransformFunc) error {
	lw, err := env.ListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	inf := cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, ResyncPeriod, cache.Indexers{})
	if err := inf.SetTransform(transform); err != nil {
		return fmt.Errorf("%w: set transform: %w", harness.ErrTarget, err)
	}
	if _, err := env.Probe.AddEventHandler(inf, nil); err != nil {
		return err
	}
	inf.RunWithContext(ctx)
	return nil
}

// stripManagedFields is a TransformFunc that removes metadata.managedFields
// from an object in place and hands it on. Anything that is no object
// (meta.Accessor fails on it) is handed on as it is. It is what
// controller-runtime's cache.TransformStripManagedFields does; client-go
// v0.35 to v0.37 ships no such transform. managedFields are set to nil
// only when an object has some. So a transform of an object that has none,
// a second call included, writes nothing. It is idempotent.
func stripManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
