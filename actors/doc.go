// Package actors is the cluster's own controllers as actors of a run
// (package actor): kube-controller-manager's controllers, built as
// kube-controller-manager builds them, a scheduler, a kubelet stand-in and
// a volume provisioner, each a named value of Registry. It is a module of
// its own: it requires k8s.io/kubernetes, whose staging modules need
// replace directives (see go.mod) that a client-go-only user should not
// have to write.
package actors
