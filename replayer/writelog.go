package replayer

import (
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/writes"
)

// The target's write log: every write request the server answered —
// stored, refused or a dry run — in the order it answered them, as
// kube-apiserver's audit log records a request (k8s.io/apiserver
// pkg/apis/audit/types.go, Event: Verb, ObjectRef with its Resource,
// Namespace, Name, Subresource and ResourceVersion, ResponseStatus with
// its Code and Reason, StageTimestamp). A write stored is also an event of
// its resource's log in the served history (the truth); the log says
// what the target asked and what it was answered, refusals included.

// Write is one write request the server answered.
type Write struct {
	// At is when it was answered: virtual time since the server started
	// (the clock the served history's writes are stamped with).
	At time.Duration
	// Verb is kube-apiserver's verb of the request: create, update, patch
	// or delete (k8s.io/apiserver pkg/endpoints/request/requestinfo.go:
	// POST, PUT, PATCH, DELETE), deletecollection for a DELETE of a
	// collection; a server-side apply is a patch.
	Verb string
	// Subresource is the subresource written ("" or "status").
	Subresource string
	// Resource is the resource written (its Kind "" when the replay knows
	// none of it).
	Resource history.Resource
	// Key is the object's key, "namespace/name" or "name" ("" when the
	// request named no object and its answer none: a create refused
	// before its body was read, a delete of a collection, whose deletes
	// are events of the served history).
	Key string
	// RVBefore is the resourceVersion of the object stored under Key
	// before the write ("" when none was, or when the write was refused
	// before it looked: a read-only replay, an opaque-RV history, a resource the replay
	// knows nothing of, a request it could not read).
	RVBefore string
	// RVAfter is the resourceVersion of the object stored under Key after
	// it ("" when none is: deleted, or never created); RVBefore when
	// nothing was stored (a refusal, a dry run, a no-op update). For a
	// CustomResourceDefinition it is the RV the write stored, which the
	// replay's acceptance of it follows at the next.
	RVAfter string
	// Code is the HTTP status of the answer.
	Code int
	// Reason is the reason of a refusal's Status (Conflict,
	// AlreadyExists, ...; "" for a success).
	Reason metav1.StatusReason
	// DryRun says the request asked dryRun=All: nothing was stored.
	DryRun bool
	// Event is what the write stored in the resource's log ("" when
	// nothing).
	Event history.EventType
}

// writeLog holds a server's Writes, in the order they were answered.
type writeLog struct {
	mu  sync.Mutex
	all []Write
}

// add appends w.
func (l *writeLog) add(w Write) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, w)
}

// Writes returns the write requests the server answered, in order: each
// stored write, refusal and dry run (a copy). A write it lists that
// stored something is in the served history already: Truth, read after
// Writes, holds every such write Writes lists.
func (s *Server) Writes() []Write {
	s.writeLog.mu.Lock()
	defer s.writeLog.mu.Unlock()
	return append([]Write(nil), s.writeLog.all...)
}

// logWrite records the answer to req, a write Server.write answered on
// st, the state of its resource it saw (zero when it saw none): res when
// err is nil, else err's Status.
func (s *Server) logWrite(req writes.Request, st writeState, res writes.Result, err error) {
	w := Write{At: time.Since(s.start), Verb: req.Verb.String(), Subresource: req.Subresource, Resource: req.Kind.Resource, DryRun: req.DryRun}
	ns, name := req.Namespace, req.Name
	if obj := res.Stored; req.Verb != writes.DeleteCollection && (obj != nil || res.Answer != nil) {
		if obj == nil {
			obj = res.Answer
		}
		ns, name = obj.GetNamespace(), obj.GetName()
	}
	if err != nil {
		a := answerStatus(err)
		w.Code, w.Reason = int(a.Code), a.Reason
		if name == "" && a.Details != nil {
			name = a.Details.Name
		}
	} else {
		w.Code, w.Event = res.Code, history.EventType(res.Event)
	}
	if name != "" {
		w.Key = writes.Key(ns, name)
	}
	if o := st.byKey[w.Key]; o != nil && w.Key != "" {
		w.RVBefore = o.ResourceVersion
	}
	switch {
	case req.Verb == writes.DeleteCollection: // of many keys: no one key's RVs
	case err != nil || res.Event == writes.None:
		w.RVAfter = w.RVBefore
	case res.Event != writes.Deleted:
		w.RVAfter = res.Stored.GetResourceVersion()
	}
	s.writeLog.add(w)
}

// refuse records the refusal st of r, a write request to the resource
// res (as its path names it: q), answered before a write was tried, and
// returns st. A method that writes nothing (HEAD, OPTIONS) is no write
// and is not recorded.
func (s *Server) refuse(r *http.Request, q history.Request, res history.Resource, st metav1.Status) metav1.Status {
	verb := verbOf(r.Method, q.Name)
	if verb == "" {
		return st
	}
	w := Write{At: time.Since(s.start), Verb: verb, Subresource: q.Subresource, Resource: res, Code: int(st.Code), Reason: st.Reason}
	if q.Name != "" {
		w.Key = writes.Key(q.Namespace, q.Name)
	}
	w.DryRun = slices.Contains(r.URL.Query()["dryRun"], metav1.DryRunAll)
	s.writeLog.add(w)
	return st
}

// methodNotAllowed is the Status of writeMethodNotAllowed's 405, as
// refuse records it.
var methodNotAllowed = metav1.Status{Code: http.StatusMethodNotAllowed, Reason: metav1.StatusReasonMethodNotAllowed}

// refuseErr is refuse with err's Status.
func (s *Server) refuseErr(r *http.Request, q history.Request, res history.Resource, err error) {
	s.refuse(r, q, res, answerStatus(err))
}

// verbOf is kube-apiserver's verb of a request of method to a path that
// names the object name ("" for a collection): create, update, patch,
// delete, or deletecollection (requestinfo.go, NewRequestInfo); "" for a
// method that writes nothing.
func verbOf(method, name string) string {
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

// answerStatus is the Status a write's error answers: an
// *apierrors.StatusError's own, else a 500.
func answerStatus(err error) metav1.Status {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return se.ErrStatus
	}
	return internalError(err)
}
