package replayer

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/builtin"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
	"github.com/lwreplay/lwreplay/replayer/writes"
)

// The target's writes. A write is answered by writes.Do on the state of
// its resource as it is now. What it stores is placed in the resource's
// log as the event a watch then serves. It is placed:
//   - after the newest resourceVersion that has happened in any resource:
//     served, or reached by the pace. (Under PaceMax every recorded event
//     has, so a write comes after all of them.)
//   - at the next RVs of one counter across resources (etcd's revision);
//   - before what the history records after that, which is served that
//     many RVs higher.
//
// Recorded changes still to come of an object the write stored are the
// other actors' writes onto what the target left (actors.go). The served
// history with the writes is the run's truth.
//
// A history whose RVs are not integers (opaque-rv) takes no writes: 405
// with the reason.

// errWrites says why a replay does not take writes now.
var errWrites = errors.New("the replay does not take writes")

// serveWrite answers a request whose method is not GET.
func (s *Server) serveWrite(w http.ResponseWriter, r *http.Request) {
	q, isResource, err := history.ParseRequestInfo(r.URL)
	refuse := s.eng.refuse
	if byActor(r) { // an actor's refusals are not the target's writes
		refuse = func(_ *http.Request, _ history.RequestInfo, _ history.Resource, st metav1.Status) metav1.Status {
			return st
		}
	}
	if s.opts.readOnly || !isResource || err != nil {
		if isResource && err == nil {
			refuse(r, q, q.Resource, methodNotAllowed)
		}
		writeMethodNotAllowed(w)
		return
	}
	var hint []byte // a create's body: its kind may name a resource the history does not record
	if r.Method == http.MethodPost && r.Body != nil {
		hint, _ = io.ReadAll(io.LimitReader(r.Body, writes.MaxBodyBytes+1))
		r.Body = io.NopCloser(bytes.NewReader(hint))
	}
	l, ok := s.eng.logFor(q, hint)
	if !ok {
		status.Write(w, refuse(r, q, q.Resource, noTrafficFor(s.store.discovery(), s.h, q.Resource)))
		return
	}
	if why := writable(l); why != "" {
		status.Write(w, refuse(r, q, l.Resource, apierrors.NewMethodNotSupported(schema.GroupResource{Group: l.Resource.Group, Resource: l.Resource.Resource},
			fmt.Sprintf("%s (%v: %s)", r.Method, errWrites, why)).ErrStatus))
		return
	}
	kind := s.eng.kindFor(l.Resource)
	req, err := writes.Parse(r, q, kind)
	if err != nil {
		refuse(r, q, l.Resource, answerStatus(err))
		writeStatusErr(w, err)
		return
	}
	res, body, err := s.eng.writeAs(req, writerOf(r))
	if s.opts.faultsAt(r) {
		s.writePoint(l, writeKey(req, res, err), byActor(r))
	}
	s.eng.collectGarbage() // a delete of an owner, or a dependent of one gone
	if errors.Is(err, writes.ErrAborted) {
		panic(http.ErrAbortHandler) // as kube-apiserver's handler: the stream is reset
	}
	if err != nil {
		writeStatusErr(w, err)
		return
	}
	if body == nil { // not the stored object: a dry run's, a refusal's, a Status
		if body, err = json.Marshal(res.Answer.Object); err != nil {
			status.Write(w, internalError(err))
			return
		}
	}
	for _, text := range res.Warnings { // kube-apiserver's warning headers: code 299, agent "-"
		if h, err := utilnet.NewWarningHeader(299, "-", text); err == nil {
			w.Header().Add("Warning", h)
		}
	}
	gvk := gvkOf(l.Resource)
	if res.Answer != nil {
		gvk = res.Answer.GroupVersionKind() // a Status, or a subresource's kind
	}
	writeObject(w, r, gvk, res.Code, body)
}

// writable returns why l takes no writes now ("" when it does).
func writable(l *history.Log) string {
	switch {
	case !l.Order().Numeric():
		return "its resourceVersions are not integers"
	}
	return ""
}

// after returns the position of l after every event at or before rv.
func after(l *history.Log, rv uint64) int {
	return sort.Search(len(l.Events), func(i int) bool {
		v, err := strconv.ParseUint(l.Events[i].RV(), 10, 64)
		return err == nil && v > rv
	})
}

// eventOf is the log event of typ of obj, a stored object, by the writer
// from names (targetFrom, gcFrom).
func eventOf(typ writes.Event, obj *unstructured.Unstructured, at time.Duration, from string) (history.Event, error) {
	o, _, _, err := history.ObjectOf(obj.Object)
	if err != nil {
		return history.Event{}, err
	}
	return history.Event{Type: history.EventType(typ), Object: o, At: at, From: history.Location{File: from, Event: -1}}, nil
}

// crdAccepted is what kube-apiserver's apiextensions controllers make of
// a CustomResourceDefinition a write stored (created, or changed) that
// they have not accepted yet. At the next resourceVersion, its names are
// accepted and it is established. Then status.conditions NamesAccepted
// and Established are True, acceptedNames are the spec's, and
// storedVersions is the storage version. This is the other actor a CRD's
// creator waits for.
func crdAccepted(res history.Resource, r writes.Result, nextRV func() string) (*unstructured.Unstructured, bool) {
	if res.Group != crdGroup || res.Resource != crdResource || (r.Event != writes.Added && r.Event != writes.Modified) {
		return nil, false
	}
	conds, _, _ := unstructured.NestedSlice(r.Stored.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
			return nil, false
		}
	}
	out := r.Stored.DeepCopy()
	names, _, _ := unstructured.NestedMap(out.Object, "spec", "names")
	stored := []any{}
	versions, _, _ := unstructured.NestedSlice(out.Object, "spec", "versions")
	for _, v := range versions {
		if m, ok := v.(map[string]any); ok && m["storage"] == true {
			stored = append(stored, m["name"])
		}
	}
	now := out.GetCreationTimestamp().UTC().Format(time.RFC3339)
	cond := func(typ, reason, msg string) any {
		return map[string]any{"type": typ, "status": "True", "lastTransitionTime": now, "reason": reason, "message": msg}
	}
	_ = unstructured.SetNestedField(out.Object, map[string]any{
		"conditions": []any{
			cond("NamesAccepted", "NoConflicts", "no conflicts found"),
			cond("Established", "InitialNamesAccepted", "the initial names have been accepted"),
		},
		"acceptedNames":  names,
		"storedVersions": stored,
	}, "status")
	out.SetResourceVersion(nextRV())
	return out, true
}

// newestRV is the newest resourceVersion of every log of h (a numeric
// history's).
func newestRV(h *history.History) uint64 {
	var out uint64
	for _, l := range h.Logs {
		if v, err := strconv.ParseUint(l.LastRV(), 10, 64); err == nil {
			out = max(out, v)
		}
	}
	return out
}

// kindOf is what a write needs to know of res. It says whether
// client-go's scheme knows its kind, and whether it has a status
// subresource. A built-in kind has one when its Go type has a Status
// field. Every custom resource has one, as discovery tells.
func kindOf(res history.Resource) writes.Kind {
	k := writes.Kind{Resource: res, Status: true}
	obj, err := builtin.Scheme.New(schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind})
	if err != nil {
		return k
	}
	k.Builtin = true
	t := reflect.TypeOf(obj)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	_, k.Status = t.FieldByName("Status")
	return k
}

// nameAlphabet is the alphabet of generated name suffixes
// (k8s.io/apimachinery/pkg/util/rand: no vowels, no 0, 1 and 3).
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// nameSuffix is the n-th generated name suffix of a run's writes to res.
// It is 5 characters of nameAlphabet, the same in every run of the same
// writes.
func nameSuffix(res history.Resource, n int) string {
	sum := sha256.Sum256([]byte(res.ID().String() + "/" + strconv.Itoa(n)))
	b := make([]byte, 5)
	for i := range b {
		b[i] = nameAlphabet[int(sum[i])%len(nameAlphabet)]
	}
	return string(b)
}

// writeStatusErr writes err's Status: an *apierrors.StatusError's own,
// else a 500.
func writeStatusErr(w http.ResponseWriter, err error) {
	status.Write(w, answerStatus(err))
}
