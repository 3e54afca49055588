package writes

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// maxNameGenerationCreateAttempts is how many generated names a create
// with generateName tries before giving up (store.go:508).
const maxNameGenerationCreateAttempts = 8

// maxGeneratedNameLength is the longest generateName prefix kept, so the
// name with its 5-character suffix fits 63 characters
// (k8s.io/apiserver pkg/storage/names/generate.go).
const maxGeneratedNameLength = 63 - 5

// create answers a POST: it decodes the body and creates it.
func create(st State, env Env, req Request) (Result, error) {
	if req.Subresource != "" {
		return Result{}, noCreate(req)
	}
	mk := trackKeyOf(st, req, "")
	obj, warnings, checked, reused := tracks.reuse(mk, nil, env.Now)
	var typed bool
	if !reused {
		body, err := decodeBody(req)
		if err != nil {
			return Result{}, err
		}
		obj, warnings, typed = body.obj, body.warnings, body.typed
	}
	name := obj.GetName() // admission.extractResourceName: before the name is generated
	if name == "" {
		name = obj.GetGenerateName()
	}
	if err := admitNamespace(env, req, name); err != nil {
		return Result{}, err
	}
	if !reused {
		// the handler records the create in managedFields against an empty
		// object of the kind (handlers/create.go)
		var err error
		if obj, err = tracked(req, env, nil, obj, typed, mk, warnings); err != nil {
			return Result{}, err
		}
	}
	req.checked = checked && obj.GetName() != "" // a generated name is checked each time
	res, err := createObject(st, env, req, obj)
	tracks.stored(mk, err)
	res.Warnings = warnings
	return res, err
}

// tracked is obj, a non-apply write's new object of req.Kind, as the
// handlers hold it before storage. A built-in one goes through its Go
// type (throughType) unless typed says it came out of it. The write is
// recorded in managedFields as an Update by its field manager
// (trackUpdate) against old (nil: an empty object), held under mk with
// the write's warnings. obj is the caller's, changed in place.
func tracked(req Request, env Env, old, obj *unstructured.Unstructured, typed bool, mk *trackKey, warnings []string) (*unstructured.Unstructured, error) {
	if req.Kind.Builtin && !typed {
		typed, err := throughType(req.Kind, obj)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		obj = typed
	}
	if old == nil {
		old = &unstructured.Unstructured{}
		old.SetGroupVersionKind(gvk(req.Kind))
	}
	return trackUpdate(req.Kind, req.Subresource, old, obj, managerOrUserAgent(req.FieldManager, req.UserAgent), env.Now, mk, warnings)
}

// noCreate is the answer to a POST to a subresource. The status
// subresource's storage is no rest.Creater, so kube-apiserver has no POST
// route there; go-restful answers a bare 405. noCreate is the Status form
// of that 405.
func noCreate(req Request) error {
	return apierrors.NewMethodNotSupported(groupResource(req.Kind), "create")
}

// createObject stores obj as a new object of req.Kind with the create
// rules: uid, creationTimestamp, generation, resourceVersion,
// generateName, AlreadyExists, and an RV set on create refused.
// Server-side apply's create of a missing object calls it too.
//
// The order is kube-apiserver's:
//   - the handler wipes the system fields and checks the namespace
//     (handlers/create.go:171-178);
//   - Store.Create generates the name, retrying AlreadyExists up to 8
//     times (store.go:514-543);
//   - rest.BeforeCreate validates;
//   - etcd3 refuses a set resourceVersion before it looks for the key.
//
// The managedFields stay as the body sent them (the field manager is
// server-side apply's). obj is the caller's own copy: it is changed and
// stored as it is.
func createObject(st State, env Env, req Request, obj *unstructured.Unstructured) (Result, error) {
	wipeSystemFields(obj)
	if err := ensureNamespace(req.Kind, req.Namespace, obj); err != nil {
		return Result{}, err
	}
	if obj.GetGenerateName() == "" || obj.GetName() != "" {
		return insert(st, env, req, obj, false)
	}
	var err error
	for i := 0; i < maxNameGenerationCreateAttempts; i++ {
		var res Result
		if res, err = insert(st, env, req, withGeneratedName(obj, env), false); err == nil || !apierrors.IsAlreadyExists(err) {
			return res, err
		}
	}
	return Result{}, err
}

// withGeneratedName is a copy of obj named generateName + env.Suffix()
// (names.simpleNameGenerator.GenerateName).
func withGeneratedName(obj *unstructured.Unstructured, env Env) *unstructured.Unstructured {
	out := obj.DeepCopy()
	base := obj.GetGenerateName()
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	out.SetName(base + env.Suffix())
	return out
}

// insert creates obj (named, its namespace set) in st. It fills the
// system fields (rest.FillObjectMetaSystemFields). It runs the strategy's
// create preparation: status dropped when the kind has the subresource,
// generation 1. Then come validation and storage. An existing key is
// AlreadyExists; for a generated name it is GenerateNameConflict
// (rest.CheckGeneratedNameError). When the stored object has a
// deletionTimestamp, "object is being deleted: " comes before it
// (store.go:605-610). ignoreRV is the create-on-update path. There
// etcd3's GuaranteedUpdate clears the resourceVersion instead of refusing
// it. A dry run stores nothing. It answers the object as
// DryRunnableStorage.Create copies it: with the body's resourceVersion
// (none), since etcd3 never sees it.
func insert(st State, env Env, req Request, obj *unstructured.Unstructured, ignoreRV bool) (Result, error) {
	obj.SetCreationTimestamp(metav1.NewTime(env.Now))
	obj.SetUID(env.NewUID())
	if req.Kind.Status {
		// the strategy resets it: a custom resource has none, a built-in
		// its Go type's empty status, encoded {}
		delete(obj.Object, "status")
		if req.Kind.Builtin {
			obj.Object["status"] = map[string]any{}
		}
		if isPods(req.Kind) {
			st, err := podCreateStatus(obj)
			if err != nil {
				return Result{}, apierrors.NewBadRequest(err.Error())
			}
			obj.Object["status"] = st
		}
	}
	if isNamespaces(req.Kind) {
		namespaceCreate(obj)
	}
	if tracksGeneration(req.Kind) {
		obj.SetGeneration(1)
	} else {
		obj.SetGeneration(0)
	}
	if !req.checked {
		if err := validateCreate(req.Kind, obj); err != nil {
			return Result{}, err
		}
	}
	if ignoreRV {
		obj.SetResourceVersion("")
	} else if !req.DryRun && rvSet(obj.GetResourceVersion()) {
		return Result{}, rvSetOnCreate()
	}
	if existing, ok := st.Get(Key(obj.GetNamespace(), obj.GetName())); ok {
		return Result{}, alreadyExists(req, obj, existing)
	}
	obj, err := storedDefaults(req.Kind, obj) // a dry run's copyInto decodes it too (dryrun.go)
	if err != nil {
		return Result{}, err
	}
	if req.DryRun {
		return Result{Code: http.StatusCreated, Event: None, Answer: obj}, nil
	}
	obj.SetResourceVersion(env.NextRV())
	return Result{Code: http.StatusCreated, Event: Added, Stored: obj, Answer: obj, AnswerIsStored: true}, nil
}

// alreadyExists is the registry's answer to a create of obj where
// existing is stored (store.go:596-611).
func alreadyExists(req Request, obj, existing *unstructured.Unstructured) error {
	gr := groupResource(req.Kind)
	var err *apierrors.StatusError
	if obj.GetGenerateName() != "" {
		err = apierrors.NewGenerateNameConflict(gr, obj.GetName(), 1)
	} else {
		err = apierrors.NewAlreadyExists(gr, obj.GetName())
	}
	if existing.GetDeletionTimestamp() != nil {
		err.ErrStatus.Message = "object is being deleted: " + err.ErrStatus.Message
	}
	return err
}
