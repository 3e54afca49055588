package writes

import apierrors "k8s.io/apimachinery/pkg/api/errors"

// patch answers a PATCH (owned by the patch and apply rules).
func patch(st State, env Env, req Request) (Result, error) {
	return Result{}, apierrors.NewMethodNotSupported(groupResource(req.Kind), "patch")
}
