package status

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		st         metav1.Status
		code       int
		retryAfter string
		body       string // a part of the body
	}{
		{name: "write - not found - 404 Status, no Retry-After - pass", st: NotFound(), code: http.StatusNotFound,
			body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`},
		{name: "write - too many requests after 3 s - 429 with Retry-After 3 - pass", st: apierrors.NewTooManyRequests("slow down", 3).ErrStatus,
			code: http.StatusTooManyRequests, retryAfter: "3", body: `"reason":"TooManyRequests"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			Write(rec, tt.st)
			if rec.Code != tt.code {
				t.Errorf("code: got %d, want %d", rec.Code, tt.code)
			}
			if got := rec.Header().Get("Retry-After"); got != tt.retryAfter {
				t.Errorf("Retry-After: got %q, want %q", got, tt.retryAfter)
			}
			if got := rec.Header().Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type: got %q, want application/json", got)
			}
			if body := rec.Body.String(); !strings.Contains(body, tt.body) || !strings.HasSuffix(body, "}\n") {
				t.Errorf("body: got %q, want it to hold %q and end in one newline", body, tt.body)
			}
		})
	}
}
