package writes

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/lwreplay/lwreplay/internal/builtin"
)

// maxJSONPatchOperations is the most operations kube-apiserver takes in
// one JSON patch (endpoints/handlers/patch.go).
const maxJSONPatchOperations = 10000

// patch answers a PATCH as kube-apiserver's PatchResource handler does
// (endpoints/handlers/patch.go). The patch type must be one the resource
// serves (415). The options must be valid (422 PatchOptions). The body
// must be JSON, or YAML for apply (400). A JSON, merge or strategic merge
// patch of a missing object is 404. An apply of one creates it, but not
// through the status subresource (404). The patched object is stored with
// the update rules, its Update (or Apply) recorded in managedFields.
func patch(st State, env Env, req Request) (Result, error) {
	pt := patchTypeOf(req)
	if err := checkPatchRequest(req.Kind, pt, req); err != nil {
		return Result{}, err
	}
	old, found := st.Get(Key(req.Namespace, req.Name))
	if !found && (pt != types.ApplyYAMLPatchType || req.Subresource != "") {
		// Only an apply to the main resource may create (forceAllowCreate);
		// a subresource's REST never creates (StatusREST.Update).
		return Result{}, apierrors.NewNotFound(groupResource(req.Kind), req.Name)
	}
	if pt == types.ApplyYAMLPatchType {
		var live *unstructured.Unstructured
		if found {
			live = old
		}
		obj, err := applied(req.Kind, live, req, env.Now)
		if err != nil {
			return Result{}, err
		}
		if !found {
			return createObject(st, env, req, obj)
		}
		return store(st, env, req, old, obj)
	}
	mk := trackKeyOf(st, req, Key(req.Namespace, req.Name))
	obj, warnings, checked, reused := tracks.reuse(mk, old, env.Now)
	if !reused {
		var err error
		if obj, warnings, err = patched(req.Kind, old, req); err != nil {
			return Result{}, err
		}
		if obj, err = trackUpdate(req.Kind, req.Subresource, old, obj, managerOrUserAgent(req.FieldManager, req.UserAgent), env.Now, mk, warnings); err != nil {
			return Result{}, err
		}
	}
	req.checked = checked
	res, err := store(st, env, req, old, obj)
	tracks.stored(mk, err)
	res.Warnings = warnings
	return res, err
}

// patchTypeOf is req's patch type: PatchType, or else the media type of
// ContentType without its parameters, as the handler takes it.
func patchTypeOf(req Request) types.PatchType {
	if req.PatchType != "" {
		return req.PatchType
	}
	ct := req.ContentType
	if i := strings.Index(ct, ";"); i > 0 {
		ct = ct[:i]
	}
	return types.PatchType(ct)
}

// patchTypes are the patch types kube-apiserver serves for k, in the
// order its 415 lists them. A custom resource has no strategic merge
// patch (apiextensions-apiserver customresource_handler.go). Apply as
// CBOR is behind the CBORServingAndStorage gate, off in 1.37.
func patchTypes(k Kind) []string {
	if k.Builtin {
		return []string{string(types.JSONPatchType), string(types.MergePatchType), string(types.StrategicMergePatchType), string(types.ApplyYAMLPatchType)}
	}
	return []string{string(types.JSONPatchType), string(types.MergePatchType), string(types.ApplyYAMLPatchType)}
}

// checkPatchRequest makes the handler's checks before it reads the
// object, in its order. First the patch type (415). Then the PatchOptions
// (422): apply needs a fieldManager; force is for apply only. Last the
// body (400).
func checkPatchRequest(k Kind, pt types.PatchType, req Request) error {
	accepted := patchTypes(k)
	if !slices.Contains(accepted, string(pt)) {
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
			Reason:  metav1.StatusReasonUnsupportedMediaType,
			Message: "the body of the request was in an unknown format - accepted media types include: " + strings.Join(accepted, ", ")}}
	}
	opts := &metav1.PatchOptions{FieldManager: req.FieldManager}
	if req.Force {
		opts.Force = &req.Force
	}
	if req.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	if errs := metavalidation.ValidatePatchOptions(opts, pt); len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "PatchOptions"}, "", errs)
	}
	if pt == types.ApplyYAMLPatchType {
		if _, err := yaml.ToJSON(req.Body); err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("error encoding patch: %v", err))
		}
		return nil
	}
	if !json.Valid(req.Body) {
		return apierrors.NewBadRequest("invalid JSON patch")
	}
	return nil
}

// patched is old with req's JSON patch, merge patch or strategic merge
// patch applied, as the handler's jsonPatcher and smpPatcher compute it.
// The patch is applied to old's JSON. For strategic merge it is applied
// to the map, with the patch metadata of the Go type in client-go's
// scheme. The result is decoded as the kind. A built-in kind goes through
// its Go type, which drops unknown fields. (fieldValidation defaults to
// Warn.) The result must keep old's name, namespace and uid. patched does
// not record managedFields (trackUpdate does) nor check the update rules
// (store does).
func patched(k Kind, old *unstructured.Unstructured, req Request) (*unstructured.Unstructured, []string, error) {
	obj, strict, err := patchedObject(k, old, req)
	if err != nil {
		return nil, nil, err
	}
	warnings, err := strict.apply(req.FieldValidation)
	if err != nil {
		return nil, nil, err
	}
	return obj, warnings, nil
}

// patchedObject is patched without fieldValidation: the patched object and
// the unknown fields its decoding found.
func patchedObject(k Kind, old *unstructured.Unstructured, req Request) (*unstructured.Unstructured, patchStrict, error) {
	var strict patchStrict
	pt := patchTypeOf(req)
	base := old
	if k.Builtin {
		// The handler patches the object as it encodes its Go type.
		var err error
		if base, err = throughType(k, old); err != nil {
			return nil, strict, apierrors.NewInternalError(err)
		}
	}
	var obj *unstructured.Unstructured
	var err error
	switch pt {
	case types.JSONPatchType, types.MergePatchType:
		obj, strict, err = jsonPatched(k, base, pt, req.Body)
	case types.StrategicMergePatchType:
		if !k.Builtin {
			return nil, strict, checkPatchRequest(k, pt, req)
		}
		obj, strict, err = strategicPatched(k, base, req.Body)
	default:
		// The handler's safety net (patchResource): a type no mechanism takes.
		return nil, strict, unknownError(fmt.Errorf("%v: unimplemented patch type", pt))
	}
	if err != nil {
		return nil, strict, err
	}
	if err := keepIdentity(k, req, obj); err != nil {
		return nil, strict, err
	}
	if uid := obj.GetUID(); uid != "" && uid != old.GetUID() {
		// ValidateObjectMetaUpdate (the update strategy's validation): a
		// patch has no UID precondition, so a changed uid is invalid.
		return nil, strict, apierrors.NewInvalid(gvk(k).GroupKind(), obj.GetName(), field.ErrorList{
			field.Invalid(field.NewPath("metadata", "uid"), uid, "field is immutable")})
	}
	return obj, strict, nil
}

// ErrAborted says kube-apiserver's handler panics on the request: the
// client sees its HTTP/2 stream reset (INTERNAL_ERROR), no answer. A
// server aborts the response (http.ErrAbortHandler).
var ErrAborted = errors.New("kube-apiserver's handler panics on this request")

// applyJSONPatch applies ops to doc. evanphx/json-patch panics on some
// patches (a replace of the root without a value); kube-apiserver's
// handler panics with it (1.37.2, e2e/writediff's "json patch replacing
// the root with no value"). Such a patch is ErrAborted.
func applyJSONPatch(ops jsonpatch.Patch, doc []byte) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%w: evanphx/json-patch: %v", ErrAborted, p)
		}
	}()
	return ops.Apply(doc)
}

// jsonPatched applies a JSON patch or a JSON merge patch to old with
// evanphx/json-patch, as the handler's applyJSPatch does, and decodes the
// result as the kind.
func jsonPatched(k Kind, old *unstructured.Unstructured, pt types.PatchType, body []byte) (*unstructured.Unstructured, patchStrict, error) {
	var strict patchStrict
	current, err := json.Marshal(old.Object)
	if err != nil {
		return nil, strict, apierrors.NewInternalError(err)
	}
	var js []byte
	if pt == types.JSONPatchType {
		ops, err := jsonpatch.DecodePatch(body)
		if err != nil {
			return nil, strict, apierrors.NewBadRequest(err.Error())
		}
		if len(ops) > maxJSONPatchOperations {
			return nil, strict, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops)))
		}
		if js, err = applyJSONPatch(ops, current); errors.Is(err, ErrAborted) {
			return nil, strict, err
		} else if err != nil {
			return nil, strict, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
	} else {
		js, err = jsonpatch.MergePatch(current, body)
		if err == jsonpatch.ErrBadJSONPatch {
			return nil, strict, apierrors.NewBadRequest(err.Error())
		}
		if err != nil {
			return nil, strict, unknownError(err)
		}
	}
	obj, strictErr, err := decodePatched(k, js)
	if err != nil {
		return nil, strict, apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
			field.Invalid(field.NewPath("patch"), string(js), err.Error())})
	}
	return obj, patchStrict{value: string(js), err: strictErr}, nil
}

// decodePatched decodes a patched object's JSON as the handler's codec
// does. A built-in kind goes into its Go type with the strict JSON
// decoder. Its strict error (unknown or duplicate fields) is returned
// apart, for fieldValidation. A custom resource decodes as unstructured.
func decodePatched(k Kind, js []byte) (*unstructured.Unstructured, error, error) {
	if !k.Builtin {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(js); err != nil {
			return nil, nil, err
		}
		return obj, nil, nil
	}
	info, ok := runtime.SerializerInfoForMediaType(builtin.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		return nil, nil, fmt.Errorf("no serializer defined for %v", runtime.ContentTypeJSON)
	}
	into, err := builtin.Scheme.New(gvk(k))
	if err != nil {
		return nil, nil, err
	}
	g := gvk(k)
	typed, _, err := info.StrictSerializer.Decode(js, &g, into)
	var strictErr error
	if runtime.IsStrictDecodingError(err) {
		strictErr = err
	} else if err != nil {
		return nil, nil, err
	}
	if typed == nil {
		typed = into
	}
	obj, err := toUnstructured(k, typed)
	return obj, strictErr, err
}

// strategicPatched applies a strategic merge patch to old with the patch
// metadata of the kind's Go type. So do the handler's strategicPatchObject
// and applyPatchToObject. It decodes the result into the Go type.
func strategicPatched(k Kind, old *unstructured.Unstructured, body []byte) (*unstructured.Unstructured, patchStrict, error) {
	var strict patchStrict
	ref, err := builtin.Scheme.New(gvk(k))
	if err != nil {
		return nil, strict, apierrors.NewInternalError(err)
	}
	patchMap := map[string]any{}
	if err := utiljson.Unmarshal(body, &patchMap); err != nil {
		return nil, strict, apierrors.NewBadRequest(err.Error())
	}
	merged, err := strategicpatch.StrategicMergeMapPatch(old.Object, patchMap, ref)
	if err != nil {
		return nil, strict, strategicMergePatchError(err)
	}
	into, err := builtin.Scheme.New(gvk(k))
	if err != nil {
		return nil, strict, apierrors.NewInternalError(err)
	}
	err = runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(merged, into, true)
	if runtime.IsStrictDecodingError(err) {
		strict = patchStrict{value: fmt.Sprintf("%+v", patchMap), err: err}
	} else if err != nil {
		return nil, strict, apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
			field.Invalid(field.NewPath("patch"), fmt.Sprintf("%+v", patchMap), err.Error())})
	}
	obj, err := toUnstructured(k, into)
	return obj, strict, err
}

// strategicMergePatchError is the handler's
// interpretStrategicMergePatchError. A malformed patch is 400, a list of
// lists or a retainKeys mismatch 422. Anything else stays as it is (a
// 500).
func strategicMergePatchError(err error) error {
	switch err {
	case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys,
		mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat:
		return apierrors.NewBadRequest(err.Error())
	case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
		return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
	}
	return unknownError(err)
}

// toUnstructured is typed (a built-in kind's Go object) as unstructured,
// with k's apiVersion and kind.
func toUnstructured(k Kind, typed runtime.Object) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{Object: m}
	obj.SetGroupVersionKind(gvk(k))
	return obj, nil
}

// throughType is obj of a built-in kind decoded into its Go type and
// back, as kube-apiserver holds and encodes it. Unknown fields are
// dropped; the type's empty structs and null timestamps are present. It is
// defaulted when the kind has a Defaulter (the decoder's defaulting). A
// Service without one gets its object-local defaults (defaultService).
func throughType(k Kind, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	into, err := builtin.Scheme.New(gvk(k))
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, into); err != nil {
		return nil, err
	}
	defaultTyped(k, into)
	return toUnstructured(k, into)
}

// keepIdentity checks obj, the result of a patch or an apply to
// req.Namespace/req.Name, as the handler's applyPatch does. Its namespace
// defaults to the request's (cleared for a cluster-scoped kind). It may
// not differ (rest.EnsureObjectNamespaceMatchesRequestNamespace). Its
// name must be the URL's (checkName).
func keepIdentity(k Kind, req Request, obj *unstructured.Unstructured) error {
	want := ""
	if k.Resource.Namespaced {
		want = req.Namespace
	}
	switch ns := obj.GetNamespace(); {
	case ns == want:
	case ns == "":
		obj.SetNamespace(want)
	case want == "":
		obj.SetNamespace("")
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if name := obj.GetName(); name != req.Name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, req.Name))
	}
	return nil
}

// gvk is k's group, version and kind.
func gvk(k Kind) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: k.Resource.Group, Version: k.Resource.Version, Kind: k.Resource.Kind}
}

// unknownError is the Status kube-apiserver answers for an error that is
// not a Status (responsewriters.ErrorToAPIStatus): 500, reason Unknown (""),
// the error's text.
func unknownError(err error) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
		Reason: metav1.StatusReasonUnknown, Message: err.Error()}}
}
