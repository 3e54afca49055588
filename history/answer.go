package history

import (
	"fmt"
	"net/http"
	"time"
)

// WriteAnswer is one write request a replay answered — stored, refused or
// a dry run — as kube-apiserver's audit log records a request
// (k8s.io/apiserver pkg/apis/audit/types.go, Event: Verb, ObjectRef with
// its Resource, Namespace, Name, Subresource and ResourceVersion,
// ResponseStatus with its Code and Reason, StageTimestamp). A write stored
// is also an event of its resource's log in the served history. The
// answers say what the target asked and what it was answered, refusals
// included. (Write is a recorded client's write, as a cassette holds it.)
type WriteAnswer struct {
	// At is when it was answered: virtual time since the replay started
	// (the clock the served history's writes are stamped with).
	At time.Duration
	// Verb is kube-apiserver's verb of the request (WriteVerb): create,
	// update, patch, delete, or deletecollection; a server-side apply is
	// a patch.
	Verb string
	// Subresource is the subresource written ("", "status" or "scale").
	Subresource string
	// Resource is the resource written (its Kind "" when the replay knows
	// none of it).
	Resource Resource
	// Key is the object's key, "namespace/name" or "name". It is ""
	// when the request named no object and its answer none. That is a
	// create refused before its body was read, or a delete of a
	// collection (whose deletes are events of the served history).
	Key string
	// RVBefore is the resourceVersion of the object stored under Key
	// before the write. It is "" when none was. It is "" too when the
	// write was refused before it looked: a read-only replay, an
	// opaque-RV history, a resource the replay knows nothing of, a
	// request it could not read.
	RVBefore string
	// RVAfter is the resourceVersion of the object stored under Key after
	// it. It is "" when none is: deleted, or never created. It is
	// RVBefore when nothing was stored (a refusal, a dry run, a no-op
	// update). For a CustomResourceDefinition it is the RV the write
	// stored, which the replay's acceptance of it follows at the next.
	RVAfter string
	// Code is the HTTP status of the answer.
	Code int
	// Reason is the reason of a refusal's Status (Conflict,
	// AlreadyExists, ...; "" for a success).
	Reason string
	// DryRun says the request asked dryRun=All: nothing was stored.
	DryRun bool
	// Event is what the write stored in its resource's log of the served
	// history ("" when nothing).
	Event EventType
	// Unserved says that no answer before the write had shown the target
	// the object at RVBefore. No LIST, GET or watch event the replay
	// served reached that version; a fault kept the target's reads
	// behind. Nor had an answer to one of its own writes stored it; that
	// counts only for a target that asked for no watch of the resource (one
	// that did acts on its cache, which holds what its watch delivered,
	// even when a fault refused every watch it asked for).
	// Only answers since its current instance started count: a restarted
	// process knows nothing an earlier one was shown. A conflict with a
	// version the target could not have read is no stale
	// resourceVersion it kept sending (no-conflict-loop), nor a create of
	// what its cache could not hold yet (no-create-loop).
	Unserved bool
}

// Stored reports whether the write changed the served history.
func (w WriteAnswer) Stored() bool { return w.Event != "" }

// String renders w as a report line does: "1.5s update configmaps a/made
// rv 1013→1014 200", "… rv 7→7 409 Conflict", "… dry run".
func (w WriteAnswer) String() string {
	verb := w.Verb
	if w.Subresource != "" {
		verb += "/" + w.Subresource
	}
	s := fmt.Sprintf("%v %s %s %s rv %s→%s %d", w.At.Round(time.Millisecond), verb, w.Resource.Name(), w.Key,
		rvOrNone(w.RVBefore), rvOrNone(w.RVAfter), w.Code)
	if w.Reason != "" {
		s += " " + w.Reason
	}
	if w.DryRun {
		s += " dry run"
	}
	return s
}

// rvOrNone is rv, or "none" when it is "".
func rvOrNone(rv string) string {
	if rv == "" {
		return "none"
	}
	return rv
}

// WriteVerb is kube-apiserver's verb of a request of method to a path
// that names the object name ("" for a collection). It is create,
// update, patch, delete, or deletecollection (k8s.io/apiserver
// pkg/endpoints/request/requestinfo.go, NewRequestInfo). It is "" for a
// method that writes nothing.
func WriteVerb(method, name string) string {
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if name == "" {
			return "deletecollection"
		}
		return "delete"
	}
	return ""
}
