package writes

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/applyconfigurations"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/lwreplay/lwreplay/internal/builtin"
)

// applied is live with req's server-side apply merged by req.FieldManager.
// The body is an application/apply-patch+yaml one, YAML or JSON. The merge
// is the handler's applyPatcher's, with the kind's
// managedfields.FieldManager. Conflicts with other managers are the 409
// the library words, unless req.Force takes the fields over. When the
// object does not exist, live is nil and the apply makes it from nothing.
// The managedFields times this apply stamps are now. The result keeps the
// request's name and namespace (keepIdentity). The create or update rules
// are not applied (createObject, store do).
func applied(k Kind, live *unstructured.Unstructured, req Request, now time.Time) (*unstructured.Unstructured, error) {
	if req.FieldManager == "" {
		// ValidatePatchOptions, as patch checks it first.
		return nil, checkPatchRequest(k, patchTypeOf(req), req)
	}
	fm, err := fieldManagerFor(k, req.Subresource)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	patchObj := &unstructured.Unstructured{Object: map[string]any{}}
	if err := yaml.Unmarshal(req.Body, &patchObj.Object); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	created := live == nil
	if created {
		live = &unstructured.Unstructured{}
		live.SetGroupVersionKind(gvk(k))
	} else {
		live = live.DeepCopy() // the library may change it; State's objects are not to be
	}
	out, err := fm.Apply(live, patchObj, req.FieldManager, req.Force)
	if err != nil {
		return nil, asStatus(err)
	}
	obj, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("apply made a %T, not an unstructured object", out))
	}
	if k.Builtin {
		// kube-apiserver keeps the result as the Go type: as it encodes it.
		if obj, err = throughType(k, obj); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
	}
	if created && obj.GetUID() != "" {
		return nil, apierrors.NewConflict(groupResource(k), req.Name, fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", obj.GetUID()))
	}
	if err := keepIdentity(k, req, obj); err != nil {
		return nil, err
	}
	stampTimes(live, obj, now)
	return obj, nil
}

// trackUpdate is obj, the new version of old written by a non-apply
// request (an update or a patch) of subresource ("" or "status"). The
// write is recorded in managedFields as operation Update of manager, as
// kube-apiserver's field manager does (FieldManager.UpdateNoErrors). The
// manager is the fieldManager parameter or else managerOrUserAgent's
// default; a changed entry's time is now. As in kube-apiserver, when the
// library cannot track the fields, obj's managedFields are removed and the
// write goes on. Only a kind that has no field manager is an error. obj
// is the caller's, changed in place (the field manager takes its
// managedFields out); old is not changed. With mk, the answer and the
// write's warnings are held for reuse (trackMemo).
func trackUpdate(k Kind, subresource string, old, obj *unstructured.Unstructured, manager string, now time.Time, mk *trackKey, warnings []string) (*unstructured.Unstructured, error) {
	fm, err := fieldManagerFor(k, subresource)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	// The field manager does not change the live object (the Manager
	// contract, managedfields/internal/manager.go): old is passed as is.
	var u *unstructured.Unstructured
	from := time.Now()
	if out, err := fm.Update(old, obj, manager); err == nil {
		u, _ = out.(*unstructured.Unstructured)
	}
	if u == nil {
		obj.SetManagedFields(nil)
		u = obj
	}
	if mk != nil && reusable(old, u, from, time.Now()) {
		tracks.put(mk, u, warnings)
	}
	stampTimes(old, u, now)
	return u, nil
}

// managerOrUserAgent is the handlers' field manager of a non-apply write
// (endpoints/handlers/create.go). It is the fieldManager parameter, or
// else the User-Agent up to its first "/". Unprintable runes are dropped,
// and it is cut to the longest name a field manager may have.
func managerOrUserAgent(manager, userAgent string) string {
	if manager != "" {
		return manager
	}
	buf := bytes.NewBuffer(nil)
	for _, r := range strings.Split(userAgent, "/")[0] {
		if !unicode.IsPrint(r) {
			continue
		}
		if buf.Len()+utf8.RuneLen(r) > metavalidation.FieldManagerMaxLength {
			break
		}
		buf.WriteRune(r)
	}
	return buf.String()
}

// stampTimes sets to now the time of each managedFields entry of obj that
// the field manager stamped with the wall clock. Those are the entries old
// did not have, or whose time differs from old's. It works on the entries
// as obj holds them: no entry is converted to its Go type and back.
func stampTimes(old, obj *unstructured.Unstructured, now time.Time) {
	entries := entryMaps(obj)
	if len(entries) == 0 {
		return
	}
	before := map[string]any{}
	for _, e := range entryMaps(old) {
		before[entryMapKey(e)] = e["time"]
	}
	t, err := metav1.NewTime(now.UTC().Truncate(time.Second)).MarshalQueryParameter()
	if err != nil {
		return // a time always formats
	}
	for _, e := range entries {
		if was, ok := before[entryMapKey(e)]; ok && was == e["time"] {
			continue
		}
		e["time"] = t
	}
}

// entryMaps are obj's managedFields entries as obj holds them (maps),
// skipping any that is not an object.
func entryMaps(obj *unstructured.Unstructured) []map[string]any {
	list, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "metadata", "managedFields")
	items, _ := list.([]any)
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// entryMapKey is entryKey of e, an entry held as a map.
func entryMapKey(e map[string]any) string {
	str := func(k string) string { s, _ := e[k].(string); return s }
	return strings.Join([]string{str("manager"), str("operation"), str("apiVersion"), str("subresource")}, "\x00")
}

// entryKey names a managedFields entry as the library keys them.
func entryKey(e metav1.ManagedFieldsEntry) string {
	return strings.Join([]string{e.Manager, string(e.Operation), e.APIVersion, e.Subresource}, "\x00")
}

// asStatus is err as a Status error: the library's own (a conflict, a bad
// request) as they are, others as kube-apiserver answers a plain error.
func asStatus(err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return unknownError(err)
}

// managerKey names a cached field manager.
type managerKey struct {
	gvk         schema.GroupVersionKind
	builtin     bool
	status      bool
	subresource string
}

// fieldManagers are the field managers made so far, one per managerKey;
// a managedfields.FieldManager serves concurrent requests, as it does in
// kube-apiserver.
var fieldManagers sync.Map

// builtinTypes is the type converter of client-go's scheme (its OpenAPI
// models), made once: parsing them is slow.
var builtinTypes = sync.OnceValue(func() managedfields.TypeConverter {
	return applyconfigurations.NewTypeConverter(builtin.Scheme)
})

// fieldManagerFor is the field manager of k's main resource or of its
// status subresource. kube-apiserver builds one per resource
// (endpoints/installer.go). A built-in kind's comes from client-go's
// OpenAPI models (NewDefaultFieldManager). writes does not know a custom
// resource's CRD schema. Its manager uses a deduced schema
// (NewDefaultCRDFieldManager with NewDeducedTypeConverter), not the real
// one. There every list is atomic (no merge by key, one owner for the
// whole list), every map granular, and no default or pruning applies.
func fieldManagerFor(k Kind, subresource string) (*managedfields.FieldManager, error) {
	key := managerKey{gvk: gvk(k), builtin: k.Builtin, status: k.Status, subresource: subresource}
	if fm, ok := fieldManagers.Load(key); ok {
		return fm.(*managedfields.FieldManager), nil
	}
	var fm *managedfields.FieldManager
	var err error
	reset := resetFields(k, subresource)
	conv := sameVersion{}
	if k.Builtin {
		fm, err = managedfields.NewDefaultFieldManager(builtinTypes(), conv, unstructuredscheme.NewUnstructuredDefaulter(),
			unstructuredscheme.NewUnstructuredCreator(), key.gvk, key.gvk.GroupVersion(), subresource, reset)
	} else {
		fm, err = managedfields.NewDefaultCRDFieldManager(managedfields.NewDeducedTypeConverter(), conv, unstructuredscheme.NewUnstructuredDefaulter(),
			unstructuredscheme.NewUnstructuredCreator(), key.gvk, key.gvk.GroupVersion(), subresource, reset)
	}
	if err != nil {
		return nil, err
	}
	got, _ := fieldManagers.LoadOrStore(key, fm)
	return got.(*managedfields.FieldManager), nil
}

// resetFields are the fields the strategies of k wipe, which the field
// manager leaves to their owners (GetResetFields). With a status
// subresource, the main resource resets status. The status subresource
// resets spec. It also resets metadata for a custom resource
// (customresource/status_strategy.go), and metadata.labels for a
// deployment (apps/deployment/strategy.go). Other built-in kinds' extra
// reset fields are not listed.
func resetFields(k Kind, subresource string) map[fieldpath.APIVersion]fieldpath.Filter {
	if !k.Status {
		return nil
	}
	var set *fieldpath.Set
	switch {
	case subresource == "" || subresource == "finalize": // namespaceFinalizeStrategy.GetResetFields
		set = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	case !k.Builtin:
		set = fieldpath.NewSet(fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("spec"))
	case k.Resource.Group == "apps" && k.Resource.Resource == "deployments":
		set = fieldpath.NewSet(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata", "labels"))
	default:
		set = fieldpath.NewSet(fieldpath.MakePathOrDie("spec"))
	}
	return fieldpath.NewExcludeFilterSetMap(map[fieldpath.APIVersion]*fieldpath.Set{
		fieldpath.APIVersion(schema.GroupVersion{Group: k.Resource.Group, Version: k.Resource.Version}.String()): set})
}

// sameVersion is the object converter of a resource served in one
// version as unstructured objects. Converting to that version is the
// object itself. (writes keeps no internal version, so the hub is the
// served version too.) Any other version is an error.
type sameVersion struct{}

// Convert is not supported.
func (sameVersion) Convert(in, out, context any) error {
	return fmt.Errorf("converting %T to %T is not supported", in, out)
}

// ConvertToVersion returns in when it is of the version target names.
func (sameVersion) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	from := in.GetObjectKind().GroupVersionKind()
	if to, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{from}); ok && to == from {
		return in, nil
	}
	return nil, fmt.Errorf("%v cannot be converted to %v", from, target)
}

// ConvertFieldLabel is not supported.
func (sameVersion) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return "", "", fmt.Errorf("field label %q of %v is not supported", label, gvk)
}
