package actors

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	// kube-apiserver's API groups, each registering its versions'
	// defaulting funcs into legacyscheme.Scheme, as the apiserver's own
	// install packages do (pkg/controlplane imports them).
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
)

// Defaults is kube-apiserver's defaulting of built-in kinds: the
// SetDefaults funcs of k8s.io/kubernetes's API groups. Examples: a
// StatefulSet's updateStrategy and podManagementPolicy, a Deployment's
// strategy, a pod's restartPolicy and its containers' requests from their
// limits. Every actor of Registry carries it (actor.Actor.Defaults): the
// controllers rely on defaulted objects, as a real apiserver stores them.
func Defaults() runtime.ObjectDefaulter { return legacyscheme.Scheme }
