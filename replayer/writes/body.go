package writes

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"

	"github.com/lwreplay/lwreplay/internal/builtin"
)

// Media types of request bodies.
const (
	mediaJSON     = runtime.ContentTypeJSON
	mediaProtobuf = runtime.ContentTypeProtobuf
	mediaYAML     = runtime.ContentTypeYAML
)

// decodeObject reads a create or update body of kind k into the object's
// unstructured form. The body is JSON for every kind, or protobuf for a
// built-in one (as controller-runtime's client sends them). The kind and
// apiVersion the body carries must be k's. A body without them takes k's,
// as kube-apiserver defaults them from the URL.
func decodeObject(k Kind, contentType string, body []byte) (*unstructured.Unstructured, error) {
	media, _, err := mime.ParseMediaType(contentType)
	if contentType == "" {
		media, err = mediaJSON, nil
	}
	if err != nil {
		return nil, unsupported(bodyTypes(k))
	}
	gvk := schema.GroupVersionKind{Group: k.Resource.Group, Version: k.Resource.Version, Kind: k.Resource.Kind}
	var obj *unstructured.Unstructured
	switch media {
	case mediaYAML:
		js, err := yaml.ToJSON(body)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s: %v", strings.Join(bodyTypes(k), ", "), err))
		}
		return decodeObject(k, mediaJSON, js)
	case mediaJSON:
		var m map[string]any
		if err := utiljson.Unmarshal(body, &m); err != nil || m == nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s: %v", strings.Join(bodyTypes(k), ", "), err))
		}
		obj = &unstructured.Unstructured{Object: m}
		if obj.GetKind() == "" && !k.Builtin {
			// a custom resource's body is decoded as unstructured, which
			// wants its kind (a built-in's typed decode defaults it)
			_, _, err := unstructured.UnstructuredJSONScheme.Decode(body, nil, &unstructured.Unstructured{})
			return nil, apierrors.NewBadRequest(err.Error())
		}
	case mediaProtobuf:
		if !k.Builtin {
			return nil, unsupported(bodyTypes(k))
		}
		info, ok := runtime.SerializerInfoForMediaType(builtin.Codecs.SupportedMediaTypes(), mediaProtobuf)
		if !ok {
			return nil, unsupported(bodyTypes(k))
		}
		typed, _, err := info.Serializer.Decode(body, &gvk, nil)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s: %v", strings.Join(bodyTypes(k), ", "), err))
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		obj = &unstructured.Unstructured{Object: m}
		obj.SetGroupVersionKind(gvk)
	default:
		return nil, unsupported(bodyTypes(k))
	}
	if got := obj.GroupVersionKind(); got.Kind == "" && got.Version == "" {
		obj.SetGroupVersionKind(gvk)
	} else if got != gvk {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", got.GroupVersion(), gvk.GroupVersion()))
	}
	return obj, nil
}

// bodyTypes are the media types a create or update body of kind k may
// have, as kube-apiserver's 415 lists them.
func bodyTypes(k Kind) []string {
	if k.Builtin {
		return []string{mediaJSON, mediaYAML, mediaProtobuf}
	}
	return []string{mediaJSON, mediaYAML}
}

// unsupported is kube-apiserver's 415 for a body of a media type not in
// accepted (endpoints/handlers/negotiation NewUnsupportedMediaTypeError).
func unsupported(accepted []string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: "the body of the request was in an unknown format - accepted media types include: " + strings.Join(accepted, ", ")}}
}

// decoded is a create or update body as the handler holds it.
type decoded struct {
	obj *unstructured.Unstructured
	// warnings are fieldValidation's warnings (checkFields).
	warnings []string
	// typed says obj came out of its Go type already (decodeTyped): it
	// needs no second trip through it (throughType).
	typed bool
}

// decodeBody decodes req's body and judges its fieldValidation, as
// decodeObject and then checkFields do. A built-in kind's JSON or YAML
// object is decoded once, strictly, into its Go type, as kube-apiserver's
// handler does: no unstructured decode, no conversion into the Go type.
// Any body that decode does not take as it is (a syntax or type error, a
// kind or apiVersion other than the URL's) goes the general way, so its
// answer does not change.
func decodeBody(req Request) (decoded, error) {
	if obj, strictErr, ok := decodeTyped(req); ok {
		warnings, err := judgeFields(req, strictErr)
		if err != nil {
			return decoded{}, err
		}
		return decoded{obj: obj, warnings: warnings, typed: true}, nil
	}
	obj, err := decodeObject(req.Kind, req.ContentType, req.Body)
	if err != nil {
		return decoded{}, err
	}
	warnings, err := checkFields(req)
	if err != nil {
		return decoded{}, err
	}
	return decoded{obj: obj, warnings: warnings}, nil
}

// decodeTyped is req's body, a built-in kind's JSON, YAML or protobuf
// object, decoded into its Go type (JSON and YAML strictly), defaulted,
// and held unstructured. strictErr is the decode's strict error (unknown
// or duplicate fields), or nil. It is not ok for a body the general way
// must answer.
func decodeTyped(req Request) (obj *unstructured.Unstructured, strictErr error, ok bool) {
	if !req.Kind.Builtin {
		return nil, nil, false
	}
	k := gvk(req.Kind)
	into, err := builtin.Scheme.New(k)
	if err != nil {
		return nil, nil, false
	}
	if media, _, err := mime.ParseMediaType(req.ContentType); err == nil && media == mediaProtobuf {
		if !decodeProtobuf(req.Body, k, into) {
			return nil, nil, false
		}
	} else if into, strictErr, ok = decodeStrict(req, k, into); !ok {
		return nil, nil, false
	}
	defaultTyped(req.Kind, into)
	if obj, err = toUnstructured(req.Kind, into); err != nil {
		return nil, nil, false
	}
	return obj, strictErr, true
}

// decodeStrict decodes req's body, a JSON or YAML object of kind k, into
// into (a new object of k's Go type), strictly, as strictJSON does, and
// returns it. It is not ok for another body or one that does not decode
// (strict errors aside): another kind's, or a syntax or type error.
//
// The serializer first finds the body's kind and apiVersion with a
// case-insensitive decode (SimpleMetaFactory.Interpret), then decodes the
// body strictly. A body without unknown or duplicate fields has no other
// key than the type's fields, cased as they are: the strict decode alone
// finds the same kind and apiVersion. So only a body with strict errors
// is given to the serializer, into a new object.
func decodeStrict(req Request, k schema.GroupVersionKind, into runtime.Object) (out runtime.Object, strictErr error, ok bool) {
	body, ok := typedBody(req)
	if !ok {
		return nil, nil, false
	}
	if b := bytes.TrimLeft(body, " \t\r\n"); len(b) == 0 || b[0] != '{' {
		return nil, nil, false
	}
	strictErrs, err := kjson.UnmarshalStrict(body, into)
	if err != nil {
		return nil, nil, false // the serializer's unmarshal fails alike
	}
	if len(strictErrs) > 0 {
		if into, err = builtin.Scheme.New(k); err != nil {
			return nil, nil, false
		}
		out, _, err := strictJSON.Decode(body, &k, into)
		if (err != nil && !runtime.IsStrictDecodingError(err)) || out != into {
			return nil, nil, false // out is another kind's object
		}
		strictErr = err
	}
	// the decode leaves the body's kind and apiVersion in the object
	if sent := into.GetObjectKind().GroupVersionKind(); sent != k && !sent.Empty() {
		return nil, nil, false
	}
	return into, strictErr, true
}

// decodeProtobuf decodes body, a protobuf object of kind k (as
// controller-runtime's client sends a built-in's), into into. It is not
// ok for a body that does not decode into k's Go type.
func decodeProtobuf(body []byte, k schema.GroupVersionKind, into runtime.Object) bool {
	info, ok := runtime.SerializerInfoForMediaType(builtin.Codecs.SupportedMediaTypes(), mediaProtobuf)
	if !ok {
		return false
	}
	out, _, err := info.Serializer.Decode(body, &k, into)
	return err == nil && out == into
}
