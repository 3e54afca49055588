package writes

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// createOnUpdate are the built-in resources whose strategy allows a PUT
// to create a missing object (AllowCreateOnUpdate true in
// k8s.io/kubernetes pkg/registry):
//   - core events, endpoints, limitranges, services;
//   - coordination leases and leasecandidates;
//   - rbac roles and bindings;
//   - node runtimeclasses;
//   - events.k8s.io, which shares the core event strategy.
//
// Every other built-in (configmaps, secrets, deployments, ...) answers
// 404. So does every custom resource (customresource strategy.go:264).
var createOnUpdate = map[schema.GroupResource]bool{
	{Resource: "events"}:                                                  true,
	{Resource: "endpoints"}:                                               true,
	{Resource: "limitranges"}:                                             true,
	{Resource: "services"}:                                                true,
	{Group: "events.k8s.io", Resource: "events"}:                          true,
	{Group: "coordination.k8s.io", Resource: "leases"}:                    true,
	{Group: "coordination.k8s.io", Resource: "leasecandidates"}:           true,
	{Group: "rbac.authorization.k8s.io", Resource: "roles"}:               true,
	{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}:        true,
	{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}:        true,
	{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}: true,
	{Group: "node.k8s.io", Resource: "runtimeclasses"}:                    true,
}

// update answers a PUT. It decodes the body and checks its name against
// the URL's (handlers/update.go:151). It stores it over the stored
// object. Where there is none, it creates it if the kind allows create on
// update (store.go:702-785; 201 Created: handlers/update.go:247-250).
// Else it answers 404.
func update(st State, env Env, req Request) (Result, error) {
	if req.Subresource != "" && (req.Subresource != "status" || !req.Kind.Status) && (req.Subresource != "finalize" || !isNamespaces(req.Kind)) {
		// No such subresource: apiextensions answers NotFound
		// (customresource_handler.go:353-357); a built-in has no route
		// there, modelled alike.
		return Result{}, apierrors.NewNotFound(groupResource(req.Kind), req.Name)
	}
	key := Key(expectedNamespace(req.Kind, req.Namespace), req.Name)
	old, ok := st.Get(key)
	mk := trackKeyOf(st, req, key)
	obj, warnings, checked, reused := tracks.reuse(mk, old, env.Now)
	req.checked = checked
	warned := func(res Result, err error) (Result, error) {
		tracks.stored(mk, err)
		res.Warnings = warnings
		return res, err
	}
	if !reused {
		var err error
		if obj, warnings, err = updated(env, req, old, mk); err != nil {
			return Result{}, err
		}
	}
	if ok {
		return warned(store(st, env, req, old, obj))
	}
	wipeSystemFields(obj)
	if err := ensureNamespace(req.Kind, req.Namespace, obj); err != nil {
		return Result{}, err
	}
	return warned(insert(st, env, req, obj, true))
}

// updated is the object a PUT of req hands storage: its body decoded,
// checked and tracked against old (nil: none, a create on update, which
// only some kinds allow), with the body's warnings. It is held under mk.
func updated(env Env, req Request, old *unstructured.Unstructured, mk *trackKey) (*unstructured.Unstructured, []string, error) {
	body, err := decodeBody(req)
	if err != nil {
		return nil, nil, err
	}
	obj := body.obj
	if err := checkName(req, obj); err != nil {
		return nil, nil, err
	}
	if old == nil {
		if !req.Kind.Builtin || !createOnUpdate[groupResource(req.Kind)] || req.Subresource != "" {
			return nil, nil, apierrors.NewNotFound(groupResource(req.Kind), req.Name)
		}
		// The UID precondition is checked against the empty object
		// GuaranteedUpdate starts from (store.go:698-700).
		if err := uidPrecondition(req, obj, &unstructured.Unstructured{}); err != nil {
			return nil, nil, err
		}
	}
	if obj, err = tracked(req, env, old, obj, body.typed, mk, body.warnings); err != nil {
		return nil, nil, err
	}
	return obj, body.warnings, nil
}

// uidPrecondition is the storage precondition a PUT carries when its body
// has a uid (rest.defaultUpdatedObjectInfo.Preconditions). A uid that is
// not old's is a Conflict around the StorageError etcd3 returns
// (storage/interfaces.go:157-162, storeerr.InterpretUpdateError).
func uidPrecondition(req Request, obj, old *unstructured.Unstructured) error {
	uid := obj.GetUID()
	if uid == "" || uid == old.GetUID() {
		return nil
	}
	msg := fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, old.GetUID())
	storageErr := fmt.Sprintf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: %s",
		storageKey(req.Kind, expectedNamespace(req.Kind, req.Namespace), req.Name), msg)
	return apierrors.NewConflict(groupResource(req.Kind), req.Name, errors.New(storageErr))
}

// rvPrecondition checks obj's resourceVersion against old's, as
// Store.Update does (store.go:786-809). For a built-in kind, none is an
// unconditional update. (AllowUnconditionalUpdate is true for the
// built-in strategies that configmaps, secrets, deployments, ... use.)
// For a custom resource, none is Invalid (customresource
// strategy.go:269). Another than old's is a Conflict.
func rvPrecondition(req Request, obj, old *unstructured.Unstructured) error {
	gr := groupResource(req.Kind)
	switch rv := obj.GetResourceVersion(); {
	case rv == "" && req.Kind.Builtin:
		obj.SetResourceVersion(old.GetResourceVersion())
	case rv == "":
		errs := field.ErrorList{field.Invalid(field.NewPath("metadata").Child("resourceVersion"), uint64(0), "must be specified for an update")}
		return apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: gr.Resource}, req.Name, errs)
	case rv != old.GetResourceVersion():
		return apierrors.NewConflict(gr, req.Name, errors.New(optimisticLockErrorMsg))
	}
	return nil
}

// store stores obj as the new version of old (the stored object) with
// the update rules, and answers as a PUT does. obj is the caller's own
// copy: it is changed and stored as it is. A patch computes obj and
// calls it. The update rules are:
//   - the resourceVersion precondition;
//   - uid and creationTimestamp kept;
//   - generation;
//   - a deletionTimestamp never removed;
//   - the status subresource's split;
//   - finalizers emptied on a deleting object delete it.
//
// An update that leaves the object as stored writes nothing: Event None
// and the stored object. (etcd3 GuaranteedUpdate compares the encodings:
// storage/etcd3/store.go:562.) A dry run answers the object it would
// store, at old's resourceVersion (DryRunnableStorage.GuaranteedUpdate).
func store(st State, env Env, req Request, old, obj *unstructured.Unstructured) (Result, error) {
	if err := uidPrecondition(req, obj, old); err != nil {
		return Result{}, err
	}
	if err := rvPrecondition(req, obj, old); err != nil {
		return Result{}, err
	}
	if err := ensureNamespace(req.Kind, req.Namespace, obj); err != nil {
		return Result{}, err
	}
	obj = prepareForUpdate(req, old, obj)
	if !req.checked {
		if err := validateUpdate(req.Kind, old, obj); err != nil {
			return Result{}, err
		}
	}
	obj, err := storedDefaults(req.Kind, obj)
	if err != nil {
		return Result{}, err
	}
	if len(obj.GetFinalizers()) == 0 && old.GetDeletionTimestamp() != nil && !namespaceKept(req.Kind, obj) &&
		(old.GetDeletionGracePeriodSeconds() == nil || *old.GetDeletionGracePeriodSeconds() == 0) {
		return finalized(env, req, old, obj), nil
	}
	if sameStored(obj, old) {
		return Result{Code: http.StatusOK, Event: None, Answer: old.DeepCopy()}, nil
	}
	if req.DryRun {
		return Result{Code: http.StatusOK, Event: None, Answer: obj}, nil
	}
	obj.SetResourceVersion(env.NextRV())
	return Result{Code: http.StatusOK, Event: Modified, Stored: obj, Answer: obj, AnswerIsStored: true}, nil
}

// prepareForUpdate is rest.BeforeUpdate with the strategy's
// PrepareForUpdate (rest/update.go BeforeUpdate): the status split, the
// generation, and the uid, creationTimestamp, deletionTimestamp and
// deletionGracePeriodSeconds no request can change.
func prepareForUpdate(req Request, old, obj *unstructured.Unstructured) *unstructured.Unstructured {
	switch {
	case req.Subresource == "status":
		obj = statusOnly(req.Kind, old, obj)
		obj.SetGeneration(old.GetGeneration())
	case req.Kind.Status:
		keepStatus(obj, old)
		obj.SetGeneration(nextGeneration(req.Kind, old, obj))
	default:
		obj.SetGeneration(nextGeneration(req.Kind, old, obj))
	}
	if isNamespaces(req.Kind) {
		namespaceUpdate(req, old, obj)
	}
	if obj.GetUID() == "" {
		obj.SetUID(old.GetUID())
	}
	if ct := old.GetCreationTimestamp(); !ct.IsZero() {
		obj.SetCreationTimestamp(ct)
	}
	if dt := old.GetDeletionTimestamp(); dt != nil {
		obj.SetDeletionTimestamp(dt)
	}
	if g := old.GetDeletionGracePeriodSeconds(); g != nil && obj.GetDeletionGracePeriodSeconds() == nil {
		obj.SetDeletionGracePeriodSeconds(g)
	}
	return obj
}

// finalized is an update that empties the finalizers of an object being
// deleted. The registry deletes it (ShouldDeleteDuringUpdate,
// deleteWithoutFinalizers: store.go:633-683). It answers the updated
// object with 200. The DELETED event carries the last stored object at
// the delete's revision (etcd's previous value of the key).
func finalized(env Env, req Request, old, obj *unstructured.Unstructured) Result {
	if req.DryRun {
		return Result{Code: http.StatusOK, Event: None, Answer: obj}
	}
	return Result{Code: http.StatusOK, Event: Deleted, Stored: stamped(old, env.NextRV()), Answer: obj}
}
