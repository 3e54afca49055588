package writes

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Do answers req against st, stamping through env. Its error is an
// *apierrors.StatusError carrying the Status a real kube-apiserver
// answers (code, reason, message, details and causes). Nothing is stored
// when it is not nil. (A DeleteCollection that fails part way answers its
// Status in Result: see Result.Code.)
func Do(st State, env Env, req Request) (Result, error) {
	switch req.Subresource {
	case "scale":
		return scale(st, env, req)
	case "binding":
		if req.Verb != Create { // BindingREST is a rest.NamedCreater only
			return Result{}, apierrors.NewMethodNotSupported(schema.GroupResource{Resource: "pods/binding"}, req.Verb.String())
		}
		if err := admitNamespace(env, req, req.Name); err != nil {
			return Result{}, err
		}
		return bind(st, env, req)
	case "finalize": // a namespace's: a PUT only (FinalizeREST), else as any unknown subresource
		if isNamespaces(req.Kind) && req.Verb != Update {
			return Result{}, noFinalizeVerb(req)
		}
	}
	switch req.Verb {
	case Create:
		return create(st, env, req)
	case Update:
		return update(st, env, req)
	case Patch:
		return patch(st, env, req)
	case Delete:
		return del(st, env, req)
	case DeleteCollection:
		if isNamespaces(req.Kind) { // the namespace REST is no rest.CollectionDeleter (storage.go): no route
			return Result{}, apierrors.NewMethodNotSupported(groupResource(req.Kind), "deletecollection")
		}
		return deleteCollection(st, env, req)
	}
	return Result{}, apierrors.NewMethodNotSupported(groupResource(req.Kind), fmt.Sprint(req.Verb))
}

// groupResource is k's group and resource, as Status details name them.
func groupResource(k Kind) schema.GroupResource {
	return schema.GroupResource{Group: k.Resource.Group, Resource: k.Resource.Resource}
}
