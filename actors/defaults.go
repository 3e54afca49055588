package actors

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// Default applies kube-apiserver's defaults to obj, a typed built-in
// object of a served version (an apps/v1 StatefulSet), as kube-apiserver
// does before it stores a create or an update: the defaulting functions
// of k8s.io/kubernetes/pkg/apis/<group>/<version> (for example a
// StatefulSet's revisionHistoryLimit 10, its update strategy, its pod
// template's restartPolicy). kube-controller-manager's controllers rely
// on them (the StatefulSet controller dereferences revisionHistoryLimit);
// a replay stores objects as they were sent, so what a test or a target
// creates for them must be defaulted first.
func Default(obj runtime.Object) { legacyscheme.Scheme.Default(obj) }
