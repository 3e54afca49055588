// Package status writes kube-apiserver's Status answers: a metav1.Status
// rendered as kube-apiserver renders it, with its code and headers. The
// replayer's Server and a verbatim replay answer with it, so that both
// fail a request the way a real apiserver does.
//
// Typical use:
//
//	status.Write(w, apierrors.NewBadRequest("invalid field selector").ErrStatus)
//	status.Write(w, status.NotFound())
package status

import (
	"encoding/json"
	"net/http"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// JSON renders a Status as kube-apiserver does: with kind Status and
// apiVersion v1.
func JSON(st metav1.Status) []byte {
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	b, err := json.Marshal(st)
	if err != nil { // a Status always marshals; keep a valid answer regardless
		return []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","code":500}`)
	}
	return b
}

// Write writes a Status answer with its code, and a Retry-After header
// when the Status asks the client to retry after some seconds.
func Write(w http.ResponseWriter, st metav1.Status) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	w.WriteHeader(int(st.Code))
	w.Write(JSON(st))
	w.Write([]byte("\n"))
}

// NotFound is the 404 kube-apiserver answers for a path it does not serve.
func NotFound() metav1.Status {
	return metav1.Status{
		Status: metav1.StatusFailure, Message: "the server could not find the requested resource",
		Reason: metav1.StatusReasonNotFound, Details: &metav1.StatusDetails{}, Code: http.StatusNotFound,
	}
}
