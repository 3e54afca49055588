package targets

import (
	"context"
	"fmt"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// Informers built from env.Config run at the wire level whatever the run's
// level (Env.Config). Their reflectors take their client path from
// client-go's WatchListClient gate, which the run sets
// (Target.WatchListGate).

// runMetadataInformer runs the informer of the run's resource from a
// metadatainformer factory on metadata.NewForConfig(env.Config). It is a
// SharedIndexInformer of PartialObjectMetadata whose only handler is the
// probe's. The replay answers as=PartialObjectMetadata[List] with each
// object's recorded metadata. Its store holds metadata only, which the run
// compares with the truth's metadata.
func runMetadataInformer(ctx context.Context, env *harness.Env) error {
	return metadataInformer(ctx, env, nil)
}

// metadataInformer is runMetadataInformer; register, when set, registers
// the probe with the informer instead (a test's planted consumer).
func metadataInformer(ctx context.Context, env *harness.Env, register registerFunc) error {
	client, err := metadata.NewForConfig(env.Config)
	if err != nil {
		return fmt.Errorf("%w: metadata client: %w", harness.ErrTarget, err)
	}
	factory := metadatainformer.NewSharedInformerFactory(client, 0)
	return runFactoryInformer(ctx, env, factory.ForResource(gvrOf(env)), factory.Start, factory.Shutdown, register)
}

// runDynamicInformer runs the informer of the run's resource from a
// dynamicinformer factory on dynamic.NewForConfig(env.Config): a
// SharedIndexInformer of unstructured objects whose only handler is the
// probe's.
func runDynamicInformer(ctx context.Context, env *harness.Env) error {
	return dynamicInformer(ctx, env, nil)
}

// dynamicInformer is runDynamicInformer; register, when set, registers
// the probe with the informer instead (a test's planted consumer).
func dynamicInformer(ctx context.Context, env *harness.Env, register registerFunc) error {
	client, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		return fmt.Errorf("%w: dynamic client: %w", harness.ErrTarget, err)
	}
	factory := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
	return runFactoryInformer(ctx, env, factory.ForResource(gvrOf(env)), factory.Start, factory.Shutdown, register)
}

// registerFunc registers a probe with an informer: its handler, store
// and HasSynced.
type registerFunc func(*harness.Probe, cache.SharedIndexInformer) error

// runFactoryInformer registers the probe's handler with inf (or has
// register do it), and starts its factory (start). It waits for ctx and
// shuts the factory down (shutdown waits for the informers to end).
func runFactoryInformer(ctx context.Context, env *harness.Env, inf informers.GenericInformer, start func(<-chan struct{}), shutdown func(), register registerFunc) error {
	if register == nil {
		register = func(p *harness.Probe, inf cache.SharedIndexInformer) error {
			_, err := p.AddEventHandler(inf, nil)
			return err
		}
	}
	if err := register(env.Probe, inf.Informer()); err != nil {
		return err
	}
	start(ctx.Done())
	<-ctx.Done()
	shutdown()
	return nil
}

// gvrOf returns the run's resource.
func gvrOf(env *harness.Env) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: env.Resource.Group, Version: env.Resource.Version, Resource: env.Resource.Resource}
}
