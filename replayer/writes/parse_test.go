package writes

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/lwreplay/lwreplay/history"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		method      string
		target      string
		contentType string
		body        string
		kind        Kind
		want        Request // compared: Verb, Namespace, Name, Subresource, PatchType, DryRun, FieldManager, Force, Delete
		wantCode    int32   // 0: no error
		wantMsg     string  // part of the error's message
	}{
		{name: "parse - POST to a collection - create - pass", method: http.MethodPost, target: "/api/v1/namespaces/ns/configmaps?fieldManager=ctrl",
			contentType: "application/json", body: `{}`, kind: configmaps, want: Request{Verb: Create, Namespace: "ns", FieldManager: "ctrl"}},
		{name: "parse - PUT of a status subresource - update of status - pass", method: http.MethodPut, target: "/apis/apps/v1/namespaces/ns/deployments/d/status",
			contentType: "application/json", body: `{}`, kind: deployments, want: Request{Verb: Update, Namespace: "ns", Name: "d", Subresource: "status"}},
		{name: "parse - PATCH with apply and force - apply patch, forced - pass", method: http.MethodPatch, target: "/api/v1/namespaces/ns/configmaps/a?fieldManager=m&force=true",
			contentType: "application/apply-patch+yaml", body: `{}`, kind: configmaps,
			want: Request{Verb: Patch, Namespace: "ns", Name: "a", PatchType: types.ApplyYAMLPatchType, FieldManager: "m", Force: true}},
		{name: "parse - PATCH with a charset - merge patch - pass", method: http.MethodPatch, target: "/api/v1/namespaces/ns/configmaps/a",
			contentType: "application/merge-patch+json; charset=utf-8", body: `{}`, kind: configmaps, want: Request{Verb: Patch, Namespace: "ns", Name: "a", PatchType: types.MergePatchType}},
		{name: "parse - DELETE with query options and dryRun - delete options - pass", method: http.MethodDelete, target: "/api/v1/namespaces/ns/configmaps/a?propagationPolicy=Foreground&dryRun=All",
			kind: configmaps, want: Request{Verb: Delete, Namespace: "ns", Name: "a", DryRun: true, Delete: metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationForeground), DryRun: []string{"All"}}}},
		{name: "parse - DELETE with a body - the body's options, not the query's - pass", method: http.MethodDelete, target: "/api/v1/namespaces/ns/configmaps/a?propagationPolicy=Foreground",
			contentType: "application/json", body: `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"u1"}}`, kind: configmaps,
			want: Request{Verb: Delete, Namespace: "ns", Name: "a", Delete: metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr(types.UID("u1"))}}}},
		{name: "parse - strategic merge patch of a custom resource - 415 - fail", method: http.MethodPatch, target: "/apis/example.com/v1/namespaces/ns/widgets/w",
			contentType: "application/strategic-merge-patch+json", body: `{}`, kind: widgets, wantCode: 415,
			wantMsg: "accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"},
		{name: "parse - apply without a field manager - 422 PatchOptions - fail", method: http.MethodPatch, target: "/api/v1/namespaces/ns/configmaps/a",
			contentType: "application/apply-patch+yaml", body: `{}`, kind: configmaps, wantCode: 422, wantMsg: "fieldManager: Required value: is required for apply patch"},
		{name: "parse - force on a merge patch - 422 - fail", method: http.MethodPatch, target: "/api/v1/namespaces/ns/configmaps/a?force=true",
			contentType: "application/merge-patch+json", body: `{}`, kind: configmaps, wantCode: 422, wantMsg: "force: Forbidden: may not be specified for non-apply patch"},
		{name: "parse - dryRun other than All - 422 - fail", method: http.MethodPost, target: "/api/v1/namespaces/ns/configmaps?dryRun=Some",
			contentType: "application/json", body: `{}`, kind: configmaps, wantCode: 422, wantMsg: `dryRun: Unsupported value: ["Some"]`},
		{name: "parse - POST to a pod's binding - create of the binding - pass", method: http.MethodPost, target: "/api/v1/namespaces/ns/pods/p/binding",
			contentType: "application/json", body: `{}`, kind: pods, want: Request{Verb: Create, Namespace: "ns", Name: "p", Subresource: "binding"}},
		{name: "parse - POST to an object - 405 - fail", method: http.MethodPost, target: "/api/v1/namespaces/ns/configmaps/a",
			contentType: "application/json", body: `{}`, kind: configmaps, wantCode: 405},
		{name: "parse - a body past 3 MiB - 413 - fail", method: http.MethodPost, target: "/api/v1/namespaces/ns/configmaps",
			contentType: "application/json", body: strings.Repeat(" ", MaxBodyBytes+1), kind: configmaps, wantCode: 413, wantMsg: "limit is 3145728"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body))
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			q, ok, err := history.ParseRequestInfo(r.URL)
			if !ok || err != nil {
				t.Fatalf("history.ParseRequestInfo(%s): got ok %v, error %v, want a resource request", tc.target, ok, err)
			}
			got, err := Parse(r, q, tc.kind)
			if tc.wantCode != 0 {
				var se *apierrors.StatusError
				if !errors.As(err, &se) || se.ErrStatus.Code != tc.wantCode || !strings.Contains(se.ErrStatus.Message, tc.wantMsg) {
					t.Fatalf("Parse: got error %v, want a %d Status saying %q", err, tc.wantCode, tc.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: got error %v, want none", err)
			}
			if g, w := summary(got), summary(tc.want); g != w {
				t.Errorf("Parse: got %s, want %s", g, w)
			}
		})
	}
}

// summary renders the parts of a request TestParse compares.
func summary(r Request) string {
	d := r.Delete
	pol, uid := "", ""
	if d.PropagationPolicy != nil {
		pol = string(*d.PropagationPolicy)
	}
	if d.Preconditions != nil && d.Preconditions.UID != nil {
		uid = string(*d.Preconditions.UID)
	}
	return strings.Join([]string{r.Verb.String(), r.Namespace, r.Name, r.Subresource, string(r.PatchType), boolText(r.DryRun),
		r.FieldManager, boolText(r.Force), pol, uid, strings.Join(d.DryRun, ",")}, "|")
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func ptr[T any](v T) *T { return &v }
