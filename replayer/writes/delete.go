package writes

import apierrors "k8s.io/apimachinery/pkg/api/errors"

// del answers a DELETE (owned by the create/update/delete rules).
func del(st State, env Env, req Request) (Result, error) {
	return Result{}, apierrors.NewMethodNotSupported(groupResource(req.Kind), "delete")
}
