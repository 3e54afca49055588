package writes

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metainternalversionvalidation "k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/internal/builtin"
)

// Lister is a State that lists its objects, as a DeleteCollection needs:
// it deletes what a LIST of the resource at the state's revision answers.
type Lister interface {
	State
	// List returns the objects of namespace ns ("" for every namespace),
	// sorted by key, as State.Get returns them.
	List(ns string) ([]*unstructured.Unstructured, error)
}

// errNoList says a State cannot list its objects.
var errNoList = errors.New("the state does not list its objects")

// watchListEnabled is kube-apiserver 1.37's WatchList feature gate (on by
// default since 1.34: k8s.io/apiserver pkg/features/kube_features.go),
// which the handler's list option defaults and checks depend on.
const watchListEnabled = true

// collectionOptions reads a DeleteCollection's list options from its
// query as the handler does (endpoints/handlers/delete.go:235-261). They
// are decoded (400), defaulted and validated (422 ListOptions). The field
// selector's labels are converted for the kind (400). Before that, a
// namespaced built-in kind has no collection route across namespaces
// (collectionRoute).
func collectionOptions(query url.Values, k Kind, ns string) (metainternalversion.ListOptions, error) {
	var lo metainternalversion.ListOptions
	if err := collectionRoute(k, ns); err != nil {
		return lo, err
	}
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion, &lo); err != nil {
		return lo, apierrors.NewBadRequest(err.Error())
	}
	metainternalversion.SetListOptionsDefaults(&lo, watchListEnabled)
	if errs := metainternalversionvalidation.ValidateListOptions(&lo, watchListEnabled); len(errs) > 0 {
		return lo, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs)
	}
	if lo.FieldSelector != nil {
		fs, err := lo.FieldSelector.Transform(func(label, value string) (string, string, error) {
			return convertFieldLabel(k, label, value)
		})
		if err != nil {
			return lo, apierrors.NewBadRequest(err.Error())
		}
		lo.FieldSelector = fs
	}
	return lo, nil
}

// collectionRoute refuses a DeleteCollection across namespaces of a
// namespaced built-in kind: kube-apiserver installs none there, only LIST
// and WATCH (endpoints/installer.go:590-597), and answers go-restful's
// 405. A custom resource's goes through apiextensions' handler, which
// deletes in every namespace (customresource_handler.go:406-408).
func collectionRoute(k Kind, ns string) error {
	if k.Builtin && k.Resource.Namespaced && ns == "" {
		return noRoute(http.StatusMethodNotAllowed)
	}
	return nil
}

// noRoute is kube-apiserver's answer to a path or method it has no route
// for, with empty details. It is a 404 "the server could not find the
// requested resource". Or it is a 405 "the server does not allow this
// method on the requested resource".
func noRoute(code int) error {
	return apierrors.NewGenericServerResponse(code, "", schema.GroupResource{}, "", "", 0, false)
}

// convertFieldLabel is the field label conversion of k's scheme. A
// built-in kind uses client-go's scheme. That registers none, so it takes
// runtime.DefaultMetaV1FieldSelectorConversion (metadata.name and
// metadata.namespace). kube-apiserver's own scheme adds a few per kind,
// such as a pod's spec.nodeName; k8s.io/kubernetes holds them. A custom
// resource uses apiextensions' crConverter
// (conversion/converter.go:126-141): metadata.name, and metadata.namespace
// when namespaced. selectableFields are not modelled.
func convertFieldLabel(k Kind, label, value string) (string, string, error) {
	if k.Builtin {
		return builtin.Scheme.ConvertFieldLabel(gvk(k), label, value)
	}
	if label == "metadata.name" || (k.Resource.Namespaced && label == "metadata.namespace") {
		return label, value, nil
	}
	return "", "", fmt.Errorf("field label not supported: %s", label)
}

// selected says lo selects obj, as the store's SelectionPredicate with
// the default attributes does (registry/generic/matcher.go:25-36: labels,
// metadata.name, and metadata.namespace for a namespaced kind).
func selected(k Kind, lo metainternalversion.ListOptions, obj *unstructured.Unstructured) bool {
	if lo.LabelSelector != nil && !lo.LabelSelector.Matches(labels.Set(obj.GetLabels())) {
		return false
	}
	if lo.FieldSelector != nil {
		set := fields.Set{"metadata.name": obj.GetName()}
		if k.Resource.Namespaced {
			set["metadata.namespace"] = obj.GetNamespace()
		}
		if !lo.FieldSelector.Matches(set) {
			return false
		}
	}
	return true
}

// deleteCollection answers a DELETE of a collection as
// Store.DeleteCollection does (registry/generic/registry/store.go:1309-1451).
// kube-apiserver has one delete worker: --delete-collection-workers
// defaults to 1 (server/options/etcd.go:81). The function lists the
// objects the list options select. With a limit set, it takes the first
// limit of them; a continue token is not modelled. It deletes each, in key
// order, as a DELETE of it with the request's options does. (Finalizers
// keep an object with a deletionTimestamp; preconditions,
// propagationPolicy and dryRun apply.) One that is gone is skipped. It
// answers 200 with the list as listed, before the deletes, at
// env.Revision. The first delete that fails ends it. Its error is the
// answer, and the deletes before it are stored (Result.Code the
// failure's, Answer its Status).
func deleteCollection(st State, env Env, req Request) (Result, error) {
	if err := collectionRoute(req.Kind, req.Namespace); err != nil {
		return Result{}, err
	}
	l, ok := st.(Lister)
	if !ok {
		return Result{}, apierrors.NewInternalError(errNoList)
	}
	all, err := l.List(expectedNamespace(req.Kind, req.Namespace))
	if err != nil {
		return Result{}, apierrors.NewInternalError(err)
	}
	var items []*unstructured.Unstructured
	for _, o := range all {
		if req.List.Limit > 0 && int64(len(items)) == req.List.Limit {
			break
		}
		if selected(req.Kind, req.List, o) {
			items = append(items, o)
		}
	}
	var changes []Change
	for _, o := range items {
		one := req
		one.Verb, one.Namespace, one.Name = Delete, o.GetNamespace(), o.GetName()
		res, err := del(st, env, one)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			if len(changes) == 0 {
				return Result{}, err
			}
			return failedPartWay(err, changes)
		}
		changes = append(changes, res.Before...)
		if res.Event != None {
			changes = append(changes, Change{Event: res.Event, Stored: res.Stored})
		}
	}
	return withChanges(Result{Code: http.StatusOK, Answer: listAnswer(req.Kind, items, env.Revision)}, changes), nil
}

// listAnswer is the list a DeleteCollection answers: kind <Kind>List of
// the resource's group version, at resourceVersion rv, its items as
// listed. A built-in kind's items have no kind and apiVersion, as its
// typed list encodes them. A custom resource's unstructured list keeps
// them.
func listAnswer(k Kind, items []*unstructured.Unstructured, rv string) *unstructured.Unstructured {
	out := make([]any, 0, len(items))
	for _, o := range items {
		m := runtime.DeepCopyJSON(o.Object)
		if k.Builtin {
			delete(m, "kind")
			delete(m, "apiVersion")
		}
		out = append(out, m)
	}
	md := map[string]any{}
	if rv != "" {
		md["resourceVersion"] = rv
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": k.Resource.GroupVersion(), "kind": k.Resource.Kind + "List", "metadata": md, "items": out,
	}}
}

// failedPartWay is the result of a DeleteCollection whose delete failed
// with err after changes were made. The changes are stored; the answer is
// err's Status with its code.
func failedPartWay(err error, changes []Change) (Result, error) {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return Result{}, err
	}
	st := se.Status()
	st.Kind, st.APIVersion = "Status", "v1"
	m, cerr := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	if cerr != nil {
		return Result{}, apierrors.NewInternalError(cerr)
	}
	return withChanges(Result{Code: int(st.Code), Answer: &unstructured.Unstructured{Object: m}}, changes), nil
}

// withChanges is res storing changes: the first as Event and Stored, the
// others as More.
func withChanges(res Result, changes []Change) Result {
	if len(changes) == 0 {
		return res
	}
	res.Event, res.Stored = changes[0].Event, changes[0].Stored
	if len(changes) > 1 {
		res.More = changes[1:]
	}
	return res
}
