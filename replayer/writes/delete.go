package writes

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
)

// del answers a DELETE as Store.Delete does (store.go:1203-1293). It
// deletes a pod gracefully when its Kind says so (graceful.go). Finalizers
// left make it mark the object as being deleted; so do the garbage
// collector's, which a propagationPolicy adds. With none, it deletes the
// object. kube-apiserver does not cascade: dependents are the garbage
// collector's (a controller). So the engine deletes one object and no
// other.
func del(st State, env Env, req Request) (Result, error) {
	if req.Subresource != "" {
		return Result{}, apierrors.NewMethodNotSupported(groupResource(req.Kind), "delete")
	}
	opts := req.Delete
	if len(req.Body) > 0 {
		opts = metav1.DeleteOptions{}
		if err := json.Unmarshal(req.Body, &opts); err != nil {
			return Result{}, apierrors.NewBadRequest(err.Error())
		}
	}
	dryRun := req.DryRun || slices.Contains(opts.DryRun, metav1.DryRunAll)
	old, ok := st.Get(Key(expectedNamespace(req.Kind, req.Namespace), req.Name))
	if !ok {
		return Result{}, apierrors.NewNotFound(groupResource(req.Kind), req.Name)
	}
	if errs := metavalidation.ValidateDeleteOptions(&opts); len(errs) > 0 {
		return Result{}, apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("DeleteOptions").GroupKind(), "", errs)
	}
	if isNamespaces(req.Kind) { // the namespace REST's own Delete (namespace.go)
		if res, done, err := delNamespace(env, req, opts, old, dryRun); done {
			return res, err
		}
	}
	if err := deletePreconditions(req.Kind, old, opts.Preconditions); err != nil {
		return Result{}, err
	}
	if g := opts.GracePeriodSeconds; g != nil && *g < 0 { // rest.BeforeDelete: negative is 1 s
		one := int64(1)
		opts.GracePeriodSeconds = &one
	}
	obj := old.DeepCopy()
	if req.Kind.Graceful && GracefulKind(req.Kind) {
		graceful, pending := beforeGracefulDelete(obj, &opts, env.Now)
		if pending { // finalizeDelete of the object as it is: nothing stored
			answer, err := deletedAnswer(req.Kind, old)
			return Result{Code: deleteCode(opts), Event: None, Answer: answer}, err
		}
		if graceful {
			return delGraceful(env, req, opts, old, obj, dryRun)
		}
	}
	obj.SetFinalizers(gcFinalizers(old, opts))
	if len(obj.GetFinalizers()) == 0 {
		answer, err := deletedAnswer(req.Kind, old)
		if err != nil || dryRun {
			return Result{Code: http.StatusOK, Event: None, Answer: answer}, err
		}
		return Result{Code: http.StatusOK, Event: Deleted, Stored: stamped(old, env.NextRV()), Answer: answer}, nil
	}
	markAsDeleting(obj, env)
	code := deleteCode(opts)
	if sameStored(obj, old) {
		return Result{Code: code, Event: None, Answer: old.DeepCopy()}, nil
	}
	if dryRun {
		return Result{Code: code, Event: None, Answer: obj}, nil
	}
	stored := stamped(obj, env.NextRV())
	return Result{Code: code, Event: Modified, Stored: stored, Answer: stored, AnswerIsStored: true}, nil
}

// deleteCode is the code of the answer to a delete that did not remove
// its object: 202 when OrphanDependents is false, else 200
// (handlers/delete.go:179-190).
func deleteCode(opts metav1.DeleteOptions) int {
	//nolint:staticcheck // OrphanDependents is what the handler reads (handlers/delete.go:188).
	if od := opts.OrphanDependents; od != nil && !*od {
		return http.StatusAccepted
	}
	return http.StatusOK
}

// delGraceful stores obj, old marked by a graceful delete
// (updateForGracefulDeletionAndFinalizers, store.go:1116-1199). Its
// garbage-collector finalizers are set as opts say. It is kept (MODIFIED)
// while finalizers are left or the grace asked is above 0. Else it is
// marked and then deleted: MODIFIED, then DELETED (Store.Delete goes on
// to Storage.Delete). The answer is the pod as deleted
// (ReturnDeletedObject).
func delGraceful(env Env, req Request, opts metav1.DeleteOptions, old, obj *unstructured.Unstructured, dryRun bool) (Result, error) {
	obj.SetFinalizers(gcFinalizers(old, opts))
	if len(obj.GetFinalizers()) > 0 || *opts.GracePeriodSeconds > 0 {
		if dryRun {
			return Result{Code: deleteCode(opts), Event: None, Answer: obj}, nil
		}
		stored := stamped(obj, env.NextRV())
		return Result{Code: deleteCode(opts), Event: Modified, Stored: stored, Answer: stored, AnswerIsStored: true}, nil
	}
	if dryRun {
		return Result{Code: http.StatusOK, Event: None, Answer: obj}, nil
	}
	marked := stamped(obj, env.NextRV())
	gone := stamped(obj, env.NextRV())
	answer, err := deletedAnswer(req.Kind, gone)
	if err != nil {
		return Result{}, err
	}
	return Result{Code: http.StatusOK, Event: Deleted, Stored: gone, Answer: answer, Before: []Change{{Event: Modified, Stored: marked}}}, nil
}

// deletePreconditions checks a DELETE's preconditions against the stored
// object, with rest.BeforeDelete's messages (rest/delete.go:84-90).
func deletePreconditions(k Kind, old *unstructured.Unstructured, p *metav1.Preconditions) error {
	if p == nil {
		return nil
	}
	if p.UID != nil && *p.UID != old.GetUID() {
		return apierrors.NewConflict(kindResource(k), old.GetName(), fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, old.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != old.GetResourceVersion() {
		return apierrors.NewConflict(kindResource(k), old.GetName(), fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, old.GetResourceVersion()))
	}
	return nil
}

// gcFinalizers are old's finalizers as the delete leaves them
// (deletionFinalizersForGarbageCollection, store.go:1048-1081). The
// garbage collector is enabled, and no strategy has a default policy.
// orphan is set when asked or already set, foregroundDeletion likewise.
// The result is old's own list when the set is unchanged.
func gcFinalizers(old *unstructured.Unstructured, opts metav1.DeleteOptions) []string {
	has := sets.New(old.GetFinalizers()...)
	orphan, foreground := has.Has(metav1.FinalizerOrphanDependents), has.Has(metav1.FinalizerDeleteDependents)
	switch {
	case opts.OrphanDependents != nil: //nolint:staticcheck // still honoured
		orphan, foreground = *opts.OrphanDependents, false //nolint:staticcheck
	case opts.PropagationPolicy != nil:
		orphan = *opts.PropagationPolicy == metav1.DeletePropagationOrphan
		foreground = *opts.PropagationPolicy == metav1.DeletePropagationForeground
	case orphan:
		foreground = false
	}
	var out []string
	for _, f := range old.GetFinalizers() {
		if f != metav1.FinalizerOrphanDependents && f != metav1.FinalizerDeleteDependents {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, metav1.FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, metav1.FinalizerDeleteDependents)
	}
	if sets.New(out...).Equal(has) {
		return old.GetFinalizers()
	}
	return out
}

// markAsDeleting is store.go's markAsDeleting (store.go:1083-1101). It
// bumps the generation on the first delete of an object that has one. It
// sets the deletionTimestamp to now unless an earlier one is set, and a
// grace period of 0.
func markAsDeleting(obj *unstructured.Unstructured, env Env) {
	if obj.GetDeletionTimestamp() == nil && obj.GetGeneration() > 0 {
		obj.SetGeneration(obj.GetGeneration() + 1)
	}
	if dt := obj.GetDeletionTimestamp(); dt == nil || dt.After(env.Now) {
		now := metav1.NewTime(env.Now)
		obj.SetDeletionTimestamp(&now)
	}
	var zero int64
	obj.SetDeletionGracePeriodSeconds(&zero)
}

// returnsDeletedObject are the built-in resources whose store answers a
// delete with the deleted object (ReturnDeletedObject in
// k8s.io/kubernetes pkg/registry). They are resource.k8s.io and some
// storage.k8s.io kinds. Every other store, custom resources' included,
// answers a Status Success (finalizeDelete, store.go:1458-1487).
var returnsDeletedObject = map[string]bool{
	"/pods": true, "/namespaces": true, "/persistentvolumeclaims": true, "/persistentvolumes": true, "/services": true,
	"/serviceaccounts": true, "/resourcequotas": true, "/podtemplates": true,
	"storage.k8s.io/volumeattributesclasses": true,
	"resource.k8s.io/resourceclaims":         true, "resource.k8s.io/resourceclaimtemplates": true,
	"resource.k8s.io/resourceslices": true, "resource.k8s.io/deviceclasses": true,
	"resource.k8s.io/resourcepoolstatusrequests": true,
	"storage.k8s.io/csidrivers":                  true, "storage.k8s.io/storageclasses": true,
	"storage.k8s.io/volumeattachments": true, "storage.k8s.io/csinodes": true,
}

// deletedAnswer is the answer to a delete that removed old. It is the
// object as it was (etcd3 decodes the deleted value at its own revision).
// Or it is a Status Success naming it, its kind the resource
// (store.go:1473-1486).
func deletedAnswer(k Kind, old *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if k.Builtin && returnsDeletedObject[k.Resource.Group+"/"+k.Resource.Resource] {
		return old.DeepCopy(), nil
	}
	status := &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details:  &metav1.StatusDetails{Name: old.GetName(), Group: k.Resource.Group, Kind: k.Resource.Resource, UID: old.GetUID()},
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(status)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}
