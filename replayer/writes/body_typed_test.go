package writes

import (
	"bytes"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// TestDecodeBodyTyped holds decodeBody's one typed decode equal to the
// general way (decodeObject, checkFields, throughType): the same object,
// warnings and answer, for the bodies the typed way takes and for those
// it leaves to the general way.
func TestDecodeBodyTyped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		kind       Kind
		media      string
		validation string
		body       string
		wantTyped  bool
	}{
		{"body - protobuf configmap (controller-runtime's client) - typed - pass", configmaps, runtime.ContentTypeProtobuf, "",
			string(protobufBody(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "v"}})), true},
		{"body - protobuf deployment to configmaps - the general way - pass", configmaps, runtime.ContentTypeProtobuf, "",
			string(protobufOf(t, &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: metav1.ObjectMeta{Name: "a"}})), false},
		{"body - JSON configmap - typed - pass", configmaps, "application/json", "",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}`, true},
		{"body - no kind and apiVersion - typed - pass", configmaps, "application/json", "",
			`{"metadata":{"name":"a"},"data":{"k":"v"}}`, true},
		{"body - YAML - typed - pass", configmaps, "application/yaml", "",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n", true},
		{"body - deployment with empty structs and an int - typed - pass", deployments, "application/json", "",
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":3,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`, true},
		{"body - unknown field, Warn - typed with a warning - pass", configmaps, "application/json", metav1.FieldValidationWarn,
			`{"metadata":{"name":"a"},"data":{"k":"v"},"extra":1}`, true},
		{"body - duplicate field, no validation - typed with a warning - pass", configmaps, "application/json", "",
			`{"metadata":{"name":"a"},"data":{"k":"v"},"data":{"k":"w"}}`, true},
		{"body - unknown field, Ignore - typed - pass", configmaps, "application/json", metav1.FieldValidationIgnore,
			`{"metadata":{"name":"a"},"extra":1}`, true},
		{"body - unknown field, Strict - 400 - fail", configmaps, "application/json", metav1.FieldValidationStrict,
			`{"metadata":{"name":"a"},"extra":1}`, true},
		{"body - kind key cased otherwise, this kind - typed with a warning - pass", configmaps, "application/json", "",
			`{"KIND":"ConfigMap","metadata":{"name":"a"}}`, true},
		{"body - kind key cased otherwise, another kind - the general way - fail", configmaps, "application/json", "",
			`{"Kind":"Pod","metadata":{"name":"a"}}`, false},
		{"body - duplicate kind, the last another - the general way - fail", configmaps, "application/json", "",
			`{"kind":"ConfigMap","kind":"Pod","metadata":{"name":"a"}}`, false},
		{"body - kind without apiVersion - the general way - fail", configmaps, "application/json", "",
			`{"kind":"ConfigMap","metadata":{"name":"a"}}`, false},
		{"body - another kind - the general way - fail", configmaps, "application/json", "",
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"}}`, false},
		{"body - a type error - the general way - fail", configmaps, "application/json", "",
			`{"metadata":{"name":"a"},"data":{"k":1}}`, false},
		{"body - null - the general way - fail", configmaps, "application/json", "", `null`, false},
		{"body - not JSON - the general way - fail", configmaps, "application/json", "", `{"metadata":`, false},
		{"body - custom resource - the general way - pass", widgets, "application/json", "",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a"}}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := Request{Kind: tc.kind, ContentType: tc.media, FieldValidation: tc.validation, Body: []byte(tc.body)}
			got, gotErr := decodeBody(req)
			_, _, typed := decodeTyped(req)
			if typed != tc.wantTyped {
				t.Errorf("typed way: got %v, want %v", typed, tc.wantTyped)
			}
			// the general way
			obj, wantErr := decodeObject(req.Kind, req.ContentType, req.Body)
			var warnings []string
			if wantErr == nil {
				warnings, wantErr = checkFields(req)
			}
			if wantErr == nil && req.Kind.Builtin && typed { // else tracked converts it, later
				if obj, wantErr = throughType(req.Kind, obj); wantErr != nil {
					wantErr = apierrors.NewBadRequest(wantErr.Error())
				}
			}
			if gotErr != nil || wantErr != nil {
				if gotErr == nil || wantErr == nil || gotErr.Error() != wantErr.Error() {
					t.Fatalf("error: got %v, want %v", gotErr, wantErr)
				}
				return
			}
			if !reflect.DeepEqual(got.obj.Object, obj.Object) {
				t.Errorf("object: got %v, want %v", got.obj.Object, obj.Object)
			}
			if !reflect.DeepEqual(got.warnings, warnings) {
				t.Errorf("warnings: got %q, want %q", got.warnings, warnings)
			}
		})
	}
}

// protobufOf is obj's protobuf encoding (obj names its kind).
func protobufOf(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		t.Fatal("no protobuf serializer")
	}
	var buf bytes.Buffer
	if err := info.Serializer.Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
