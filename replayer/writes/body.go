package writes

import (
	"fmt"
	"mime"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// Media types of request bodies.
const (
	mediaJSON     = runtime.ContentTypeJSON
	mediaProtobuf = runtime.ContentTypeProtobuf
)

// decodeObject reads a create or update body of kind k: JSON for every
// kind, protobuf for a built-in one (as controller-runtime's client sends
// them), into the object's unstructured form; the kind and apiVersion the
// body carries must be k's (a body without them takes k's, as
// kube-apiserver defaults them from the URL).
func decodeObject(k Kind, contentType string, body []byte) (*unstructured.Unstructured, error) {
	media, _, err := mime.ParseMediaType(contentType)
	if contentType == "" {
		media, err = mediaJSON, nil
	}
	if err != nil {
		return nil, unsupportedMediaType(k)
	}
	gvk := schema.GroupVersionKind{Group: k.Resource.Group, Version: k.Resource.Version, Kind: k.Resource.Kind}
	var obj *unstructured.Unstructured
	switch media {
	case mediaJSON:
		u := &unstructured.Unstructured{}
		if _, _, err := unstructured.UnstructuredJSONScheme.Decode(body, &gvk, u); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf: %v", err))
		}
		obj = u
	case mediaProtobuf:
		if !k.Builtin {
			return nil, unsupportedMediaType(k)
		}
		info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaProtobuf)
		if !ok {
			return nil, unsupportedMediaType(k)
		}
		typed, _, err := info.Serializer.Decode(body, &gvk, nil)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf: %v", err))
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		obj = &unstructured.Unstructured{Object: m}
		obj.SetGroupVersionKind(gvk)
	default:
		return nil, unsupportedMediaType(k)
	}
	if got := obj.GroupVersionKind(); got.Kind == "" && got.Version == "" {
		obj.SetGroupVersionKind(gvk)
	} else if got != gvk {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", got.GroupVersion(), gvk.GroupVersion()))
	}
	return obj, nil
}

// unsupportedMediaType is kube-apiserver's 415 for a body of a media type
// the resource does not accept (endpoints/handlers/negotiation).
func unsupportedMediaType(k Kind) error {
	accepted := mediaJSON + ", application/yaml"
	if k.Builtin {
		accepted += ", " + mediaProtobuf
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
		Reason: metav1.StatusReasonUnsupportedMediaType, Message: "the body of the request was in an unknown format - accepted media types include: " + accepted}}
}
