package writes

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestDecodeObject(t *testing.T) {
	t.Parallel()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}, Data: map[string]string{"k": "v"}}
	tests := []struct {
		name        string
		kind        Kind
		contentType string
		body        []byte
		wantData    string // data.k of the decoded object; "" with wantCode
		wantCode    int32
	}{
		{name: "body - JSON configmap - decoded - pass", kind: configmaps, contentType: "application/json",
			body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`), wantData: "v"},
		{name: "body - JSON without kind and apiVersion - the URL's - pass", kind: configmaps, contentType: "application/json",
			body: []byte(`{"metadata":{"name":"a"},"data":{"k":"v"}}`), wantData: "v"},
		{name: "body - YAML configmap - decoded - pass", kind: configmaps, contentType: "application/yaml",
			body: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n"), wantData: "v"},
		{name: "body - protobuf configmap (controller-runtime's client) - decoded - pass", kind: configmaps, contentType: runtime.ContentTypeProtobuf,
			body: protobufBody(t, cm.DeepCopy()), wantData: "v"},
		{name: "body - protobuf custom resource - 415 - fail", kind: widgets, contentType: runtime.ContentTypeProtobuf,
			body: protobufBody(t, cm.DeepCopy()), wantCode: 415},
		{name: "body - another kind's apiVersion - 400 - fail", kind: configmaps, contentType: "application/json",
			body: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"}}`), wantCode: 400},
		{name: "body - custom resource without kind - 400 - fail", kind: widgets, contentType: "application/json",
			body: []byte(`{"metadata":{"name":"a"}}`), wantCode: 400},
		{name: "body - not JSON - 400 - fail", kind: configmaps, contentType: "application/json", body: []byte(`{"metadata":`), wantCode: 400},
		{name: "body - text/plain - 415 - fail", kind: configmaps, contentType: "text/plain", body: []byte(`x`), wantCode: 415},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeObject(tc.kind, tc.contentType, tc.body)
			if tc.wantCode != 0 {
				var se *apierrors.StatusError
				if !errors.As(err, &se) || se.ErrStatus.Code != tc.wantCode {
					t.Fatalf("decodeObject: got %v, want a %d Status", err, tc.wantCode)
				}
				if tc.wantCode == 415 && !strings.Contains(se.ErrStatus.Message, "accepted media types include: ") {
					t.Errorf("415 message: got %q, want the accepted media types", se.ErrStatus.Message)
				}
				return
			}
			if err != nil {
				t.Fatalf("decodeObject: got error %v, want none", err)
			}
			data, _, _ := unstructured.NestedString(got.Object, "data", "k")
			if data != tc.wantData || got.GetName() != "a" || got.GetKind() != "ConfigMap" || got.GetAPIVersion() != "v1" {
				t.Errorf("decoded: got name %q, kind %q, apiVersion %q, data.k %q, want a, ConfigMap, v1, %q", got.GetName(), got.GetKind(), got.GetAPIVersion(), data, tc.wantData)
			}
		})
	}
}
