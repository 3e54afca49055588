package writes

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/lwreplay/lwreplay/history"
)

// MaxBodyBytes is the largest request body a write may carry, as
// kube-apiserver's default (--max-request-body-bytes, 3 MiB): a larger one
// is answered 413.
const MaxBodyBytes = 3 << 20

// Parse reads the write r asks of kind k, whose path and query q
// (history.Parse's) named the object. It reads the verb of its method, its
// body (at most MaxBodyBytes), content type and patch type. It reads its
// options: dryRun, fieldManager, force, the delete options, a
// DeleteCollection's list options. It checks them as kube-apiserver's
// handlers do (endpoints/handlers: create.go, update.go, patch.go,
// delete.go). A method that writes nothing is answered 405, as the
// replayer answers it today.
func Parse(r *http.Request, q history.RequestInfo, k Kind) (Request, error) {
	req := Request{Kind: k, Namespace: q.Namespace, Name: q.Name, Subresource: q.Subresource, UserAgent: r.UserAgent()}
	switch {
	case r.Method == http.MethodPost && (q.Name == "" || q.Subresource == "binding"):
		req.Verb = Create // a create, or a pod's binding (binding.go)
	case r.Method == http.MethodPut && q.Name != "":
		req.Verb = Update
	case r.Method == http.MethodPatch && q.Name != "":
		req.Verb = Patch
	case r.Method == http.MethodDelete && q.Name != "":
		req.Verb = Delete
	case r.Method == http.MethodDelete:
		req.Verb = DeleteCollection
	default:
		return Request{}, apierrors.NewMethodNotSupported(groupResource(k), strings.ToLower(r.Method))
	}
	req.ContentType = r.Header.Get("Content-Type")
	if req.Verb == Patch {
		media := req.ContentType
		if i := strings.Index(media, ";"); i > 0 {
			media = media[:i]
		}
		accepted := patchTypes(k)
		if !slices.Contains(accepted, media) {
			return Request{}, unsupported(accepted)
		}
		req.PatchType = types.PatchType(media)
	}
	body, err := readBody(r)
	if err != nil {
		return Request{}, err
	}
	req.Body = body
	query := r.URL.Query()
	var dryRun []string
	var errs field.ErrorList
	var options string
	switch req.Verb {
	case Create:
		var o metav1.CreateOptions
		if err := metainternalversionscheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion, &o); err != nil {
			return Request{}, apierrors.NewBadRequest(err.Error())
		}
		errs, options, dryRun, req.FieldManager = validation.ValidateCreateOptions(&o), "CreateOptions", o.DryRun, o.FieldManager
		req.FieldValidation = o.FieldValidation
	case Update:
		var o metav1.UpdateOptions
		if err := metainternalversionscheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion, &o); err != nil {
			return Request{}, apierrors.NewBadRequest(err.Error())
		}
		errs, options, dryRun, req.FieldManager = validation.ValidateUpdateOptions(&o), "UpdateOptions", o.DryRun, o.FieldManager
		req.FieldValidation = o.FieldValidation
	case Patch:
		var o metav1.PatchOptions
		if err := metainternalversionscheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion, &o); err != nil {
			return Request{}, apierrors.NewBadRequest(err.Error())
		}
		errs, options, dryRun, req.FieldManager = validation.ValidatePatchOptions(&o, req.PatchType), "PatchOptions", o.DryRun, o.FieldManager
		req.FieldValidation = o.FieldValidation
		req.Force = o.Force != nil && *o.Force
	case DeleteCollection:
		if req.List, err = collectionOptions(query, k, q.Namespace); err != nil {
			return Request{}, err
		}
		fallthrough
	case Delete:
		o, err := deleteOptions(query, req.ContentType, body)
		if err != nil {
			return Request{}, err
		}
		req.Delete, req.Body = o, nil
		errs, options, dryRun = validation.ValidateDeleteOptions(&o), "DeleteOptions", o.DryRun
	}
	if len(errs) > 0 {
		return Request{}, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: options}, "", errs)
	}
	req.DryRun = len(dryRun) > 0
	return req, nil
}

// readBody reads r's body, refusing one past MaxBodyBytes with
// kube-apiserver's 413.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	defer r.Body.Close()
	data, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if len(data) > MaxBodyBytes {
		return nil, apierrors.NewRequestEntityTooLargeError("limit is 3145728")
	}
	return data, nil
}

// deleteOptions are a DELETE's options: its body's when it has one, else
// its query's. It never mixes them, as kube-apiserver's delete handler
// reads them. A body holds DeleteOptions of meta.k8s.io/v1 or of a group,
// in the body's media type (client-go's typed clients send protobuf).
func deleteOptions(query map[string][]string, contentType string, body []byte) (metav1.DeleteOptions, error) {
	var o metav1.DeleteOptions
	if len(body) > 0 {
		media, _, err := mime.ParseMediaType(contentType)
		if contentType == "" {
			media, err = mediaJSON, nil
		}
		switch {
		case err != nil:
		case media == mediaJSON || media == mediaYAML:
			// kubectl sends meta.k8s.io/v1 DeleteOptions, which no group's
			// scheme registers: read as the plain struct it is
			js, err := yaml.ToJSON(body)
			if err == nil {
				err = json.Unmarshal(js, &o)
			}
			if err != nil {
				return o, apierrors.NewBadRequest(err.Error())
			}
			return o, nil
		case media == mediaProtobuf:
			info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), media)
			gvk := metav1.SchemeGroupVersion.WithKind("DeleteOptions")
			if _, _, err := info.Serializer.Decode(body, &gvk, &o); err != nil {
				return o, apierrors.NewBadRequest(err.Error())
			}
			return o, nil
		}
		return o, unsupported([]string{mediaJSON, mediaYAML, mediaProtobuf})
	}
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion, &o); err != nil {
		return o, apierrors.NewBadRequest(err.Error())
	}
	return o, nil
}
