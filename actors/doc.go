// Package actors is the cluster's own controllers as actors of a run
// (package actor). They are kube-controller-manager's controllers, built
// as kube-controller-manager builds them, a scheduler, a kubelet stand-in
// and a volume provisioner. Each is a named value of Registry. It is a
// module of its own. It requires k8s.io/kubernetes, whose staging modules
// need replace directives (see go.mod). A client-go-only user should not
// have to write them.
//
// # kube-controller-manager
//
// KubeControllerManager runs some of Controllers in one
// kube-controller-manager. Controllers are the StatefulSet, ReplicaSet,
// Deployment, Job, DaemonSet, EndpointSlice, namespace and garbage-collector
// controllers. They share one app.ControllerContext, made from its exported
// fields as CreateControllerContext makes it. It holds a client per controller
// with kube-controller-manager's User-Agent. It holds one shared informer
// factory, and metadata informers with managedFields trimmed. It holds a
// DeferredDiscoveryRESTMapper over a memory-cached discovery client, and the
// garbage collector's GraphBuilder. Its component configuration is the
// default, with the chosen controllers as --controllers. Each controller is
// built by its descriptor's BuildController (app.NewControllerDescriptors) and
// run. Everything runs inside the run's ctx, so inside a testing/synctest
// bubble: no socket, no real-time wait. What differs from
// kube-controller-manager's own start, and why:
//
//   - no wait for /healthz (the replay answers at once), no leader
//     election, no serving, no process-wide settings (warnings are dropped
//     per client);
//   - the informers' resync period is MinResyncPeriod (12 h), not drawn
//     from [1, 2) × it at random: a run has no randomness outside its seed;
//   - the informers carry no InformerName (a process-wide name for metrics,
//     which two runs at once would collide on; 1.35 has none);
//   - controllers are built in Controllers' order and all started at once
//     (kube-controller-manager ranges over a map; its default start
//     interval is 0).
//
// Registry holds the kube-controller-manager of every controller as one
// actor, named KubeControllerManagerName, and each controller alone. A
// replay stores objects as sent, while kube-apiserver defaults them first:
// Default applies its defaults to what a test or a target creates.
package actors
