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

// The target's write log holds every write request the server answered,
// in order: stored, refused or a dry run. It records a request as
// kube-apiserver's audit log does (k8s.io/apiserver
// pkg/apis/audit/types.go, Event). That is the Verb, the ObjectRef
// (Resource, Namespace, Name, Subresource, ResourceVersion), the
// ResponseStatus (Code, Reason) and StageTimestamp. A write stored is
// also an event of its resource's log in the served history. The log
// says what the target asked and what it was answered, refusals
// included. The engine keeps it; it has its own lock.

// writeLog holds a server's Writes, in the order they were answered.
type writeLog struct {
	mu       sync.Mutex // guards answered and since
	answered []history.WriteAnswer
	since    int // answered[since:] answer the target's current instance (newInstance)
}

// newInstance notes that the target's instance starts afresh: writes
// answered before it showed it nothing (storedSince).
func (l *writeLog) newInstance() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.since = len(l.answered)
}

// add appends w.
func (l *writeLog) add(w history.WriteAnswer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.answered = append(l.answered, w)
}

// all returns the writes answered, in order (a copy).
func (l *writeLog) all() []history.WriteAnswer {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]history.WriteAnswer(nil), l.answered...)
}

// from returns the writes answered from the i-th on (none when i is
// past the last), a copy.
func (l *writeLog) from(i int) []history.WriteAnswer {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i >= len(l.answered) {
		return nil
	}
	return append([]history.WriteAnswer(nil), l.answered[max(i, 0):]...)
}

// storedSince reports whether a write answered since the target's
// instance started stored rv of key in res.
func (l *writeLog) storedSince(res history.Resource, key, rv string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range l.answered[l.since:] {
		if w.Key == key && w.Resource.ID() == res.ID() && w.Stored() && w.RVAfter == rv {
			return true
		}
	}
	return false
}

// logWrite records the answer to req, a write engine.writeAs answered.
// st is the state of its resource the write saw (zero when it saw none).
// The answer is res when err is nil, else err's Status.
func (e *engine) logWrite(req writes.Request, st writeState, res writes.Result, err error) {
	w := history.WriteAnswer{At: time.Since(e.store.start), Verb: req.Verb.String(), Subresource: req.Subresource, Resource: req.Kind.Resource, DryRun: req.DryRun,
		Key: writeKey(req, res, err)}
	if err != nil {
		a := answerStatus(err)
		w.Code, w.Reason = int(a.Code), string(a.Reason)
	} else {
		w.Code, w.Event = res.Code, history.EventType(res.Event)
	}
	if st.l != nil && w.Key != "" {
		if o, ok := st.l.ObjectAt(w.Key, st.p); ok {
			w.RVBefore = o.ResourceVersion
			w.Unserved = !e.servedVersion(st.l, w.Key, o.ResourceVersion)
		}
	}
	switch {
	case req.Verb == writes.DeleteCollection: // of many keys: no one key's RVs
	case err != nil || res.Event == writes.None:
		w.RVAfter = w.RVBefore
	case res.Event != writes.Deleted:
		w.RVAfter = res.Stored.GetResourceVersion()
	}
	e.log.add(w)
}

// servedVersion reports whether an answer had shown the target's current
// instance the object of key at rv, of l (the served log the write saw).
// Either a read's state since it started (shownHead) was at or after rv,
// or a write it sent stored it. A write's answer counts only for a target
// that has not asked for a watch of l's resource: one that has acts on
// its cache, which holds what a watch delivered, even when a fault
// refused every watch it asked for. While a fault holds the watch
// back, the cache does not hold what the target wrote. What an earlier
// instance was shown, a fresh one does not know.
func (e *engine) servedVersion(l *history.Log, key, rv string) bool {
	head, watched := e.store.shownHead(l)
	if p, err := l.Position(rv); err == nil && p <= head {
		return true
	}
	return !watched && e.log.storedSince(l.Resource, key, rv)
}

// refuse records the refusal st of r, answered before a write was tried,
// and returns st. The request r is a write to res, as its path names it
// (q).
// A method that writes nothing (HEAD, OPTIONS) is not recorded.
func (e *engine) refuse(r *http.Request, q history.RequestInfo, res history.Resource, st metav1.Status) metav1.Status {
	verb := history.WriteVerb(r.Method, q.Name)
	if verb == "" {
		return st
	}
	w := history.WriteAnswer{At: time.Since(e.store.start), Verb: verb, Subresource: q.Subresource, Resource: res, Code: int(st.Code), Reason: string(st.Reason)}
	if q.Name != "" {
		w.Key = writes.Key(q.Namespace, q.Name)
	}
	w.DryRun = slices.Contains(r.URL.Query()["dryRun"], metav1.DryRunAll)
	e.log.add(w)
	return st
}

// methodNotAllowed is the Status of writeMethodNotAllowed's 405, as
// refuse records it.
var methodNotAllowed = metav1.Status{Code: http.StatusMethodNotAllowed, Reason: metav1.StatusReasonMethodNotAllowed}

// answerStatus is the Status a write's error answers: an
// *apierrors.StatusError's own, else a 500.
func answerStatus(err error) metav1.Status {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return se.ErrStatus
	}
	return internalError(err)
}

// writeKey is the key of the object a write named or its answer did. It
// is "" when neither did: a delete of a collection, a create refused
// before its body was read.
func writeKey(req writes.Request, res writes.Result, err error) string {
	ns, name := req.Namespace, req.Name
	if obj := res.Stored; req.Verb != writes.DeleteCollection && (obj != nil || res.Answer != nil) {
		if obj == nil {
			obj = res.Answer
		}
		ns, name = obj.GetNamespace(), obj.GetName()
	}
	if err != nil {
		if a := answerStatus(err); name == "" && a.Details != nil {
			name = a.Details.Name
		}
	}
	if name == "" {
		return ""
	}
	return writes.Key(ns, name)
}

// Writes returns the write requests the server answered, in order: each
// stored write, refusal and dry run (a copy). A write it lists that
// stored something is in the served history already: Served, read after
// Writes, holds every such write Writes lists.
func (s *Server) Writes() []history.WriteAnswer { return s.eng.log.all() }

// WritesFrom is Writes from the i-th write on (none when i is past the
// last). A reader following the log as it grows copies each write once.
func (s *Server) WritesFrom(i int) []history.WriteAnswer { return s.eng.log.from(i) }
