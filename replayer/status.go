package replayer

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

func objectNotFound(gr schema.GroupResource, name string) metav1.Status {
	return apierrors.NewNotFound(gr, name).ErrStatus
}

func badRequest(msg string) metav1.Status { return apierrors.NewBadRequest(msg).ErrStatus }

// internalError is the 500 for an answer the server could not render.
func internalError(err error) metav1.Status { return apierrors.NewInternalError(err).ErrStatus }

// allowedMethods is the Allow header of a 405 answer: the replayer
// answers reads alone (LIST, WATCH, GET, discovery) on every path.
const allowedMethods = http.MethodGet

// writeMethodNotAllowed writes the 405 kube-apiserver answers for a method
// a path does not serve (its go-restful service error, as a Status). It
// sets the Allow header HTTP asks of a 405. (kube-apiserver 1.37 drops the
// one go-restful sets.)
func writeMethodNotAllowed(w http.ResponseWriter) {
	w.Header().Set("Allow", allowedMethods)
	status.Write(w, apierrors.NewGenericServerResponse(http.StatusMethodNotAllowed, "", schema.GroupResource{}, "", "405: Method Not Allowed", 0, false).ErrStatus)
}

// expired is the 410 kube-apiserver answers for a resourceVersion or
// continue token older than its compaction point.
func expired(msg string) metav1.Status {
	return metav1.Status{Status: metav1.StatusFailure, Message: msg, Reason: metav1.StatusReasonExpired, Code: http.StatusGone}
}

// tooOldWatch is the ERROR event object for a watch from a compacted RV:
// "too old resource version: 2 (7)".
func tooOldWatch(rv, oldest string) metav1.Status {
	return expired(fmt.Sprintf("too old resource version: %s (%s)", rv, oldest))
}

// tooLarge is the 504 kube-apiserver answers for a LIST at a
// resourceVersion beyond its head.
func tooLarge(rv, current string) metav1.Status {
	st := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %s, current: %s", rv, current), 1).ErrStatus
	st.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return st
}
