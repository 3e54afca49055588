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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
	"github.com/lwreplay/lwreplay/replayer/writes"
)

// The target's writes. A write is answered by writes.Do on the state of
// its resource at the newest position served; what it stores is appended
// to the resource's log as the event a watch then serves, at a
// resourceVersion above every one the history holds (one counter across
// resources, as etcd's revision): under PaceMax every recorded event is
// served at once, so a write comes after all of them. The served history
// with the writes is the run's truth.
//
// Not yet: writes under a paced replay (recorded events still to come
// would have to be served after the write: replayer/revisions.go), to a
// resource the history does not record, to an opaque-RV history, and a
// recorded change applied onto an object the target wrote (the history
// as the other actors): these answer 405 with the reason.

// errWrites says why a replay does not take writes now.
var errWrites = errors.New("the replay does not take writes")

// serveWrite answers a request whose method is not GET.
func (s *Server) serveWrite(w http.ResponseWriter, r *http.Request) {
	q, isResource, err := history.ParseRequest(r.URL)
	if s.opts.readOnly || !isResource || err != nil {
		writeMethodNotAllowed(w)
		return
	}
	var hint []byte // a create's body: its kind may name a resource the history does not record
	if r.Method == http.MethodPost && r.Body != nil {
		hint, _ = io.ReadAll(io.LimitReader(r.Body, writes.MaxBodyBytes+1))
		r.Body = io.NopCloser(bytes.NewReader(hint))
	}
	l, ok := s.logFor(q, hint)
	if !ok {
		status.Write(w, s.noTrafficFor(q.Resource))
		return
	}
	if why := s.writable(l); why != "" {
		status.Write(w, apierrors.NewMethodNotSupported(schema.GroupResource{Group: l.Resource.Group, Resource: l.Resource.Resource},
			fmt.Sprintf("%s (%v: %s)", r.Method, errWrites, why)).ErrStatus)
		return
	}
	kind := kindOf(l.Resource)
	req, err := writes.ParseRequest(r, q, kind)
	if err != nil {
		writeStatusErr(w, err)
		return
	}
	res, err := s.write(req)
	if err != nil {
		writeStatusErr(w, err)
		return
	}
	body, err := json.Marshal(res.Answer.Object)
	if err != nil {
		status.Write(w, internalError(err))
		return
	}
	writeJSONCode(w, r, res.Code, "application/json", body)
}

// writable returns why l takes no writes now ("" when it does).
func (s *Server) writable(l *history.Log) string {
	switch {
	case s.opts.pace.Mode != PaceMax:
		return "writes need --pace max for now"
	case !l.Order().Numeric():
		return "its resourceVersions are not integers"
	}
	return ""
}

// write answers req on the served history and, when it stores
// something, places its event in the resource's log: after the newest
// resourceVersion any answer reached in any resource (what has happened),
// before what the history records after it (what has not yet), which is
// served that many RVs higher.
func (s *Server) write(req writes.Request) (writes.Result, error) {
	unlock := s.lockTruth()
	defer unlock()
	truth := s.truthLocked()
	i := truth.LogIndex(req.Kind.Resource)
	if i < 0 {
		return writes.Result{}, apierrors.NewNotFound(schema.GroupResource{Group: req.Kind.Resource.Group, Resource: req.Kind.Resource.Resource}, req.Name)
	}
	l := truth.Logs[i]
	base := s.servedNewest(truth)
	p := after(l, base)
	next := base
	n := int(s.writesMade.Load())
	env := writes.Env{
		Now: time.Now(),
		NextRV: func() string {
			next++
			return strconv.FormatUint(next, 10)
		},
		NewUID: func() types.UID {
			n++
			return types.UID(newUID("write/"+l.Resource.ID().String(), strconv.Itoa(n)))
		},
		Suffix: func() string {
			n++
			return nameSuffix(l.Resource, n)
		},
	}
	res, err := writes.Do(writeStateOf(l, p), env, req)
	if err != nil || res.Event == writes.None {
		return res, err
	}
	at := time.Since(s.start)
	ev, err := eventOf(res.Event, res.Stored, at)
	if err != nil {
		return writes.Result{}, apierrors.NewInternalError(err)
	}
	placed := []history.Event{ev}
	if acc, ok := crdAccepted(l.Resource, res, env.NextRV); ok {
		// the apiextensions controller's answer to a new or changed CRD
		cev, err := eventOf(writes.Modified, acc, at)
		if err != nil {
			return writes.Result{}, apierrors.NewInternalError(err)
		}
		placed = append(placed, cev)
	}
	taken := next - base
	moveUp := func(rv string) string {
		if v, err := strconv.ParseUint(rv, 10, 64); err == nil && v > base {
			return strconv.FormatUint(v+taken, 10)
		}
		return rv
	}
	var h *history.History
	if newestRV(truth) <= base {
		// the write at the end of its log (p == l.End()): O(log n)
		h, err = history.AppendEvents(truth, l.Resource, placed...)
	} else {
		// recorded events after the write, served taken RVs higher: the
		// history rebuilt, O(n)
		var work *history.History
		if work, err = history.RewriteRVs(truth, moveUp); err == nil {
			wl := work.Logs[i]
			evs := make([]history.Event, 0, len(wl.Events)+len(placed))
			evs = append(append(append(evs, wl.Events[:p]...), placed...), wl.Events[p:]...)
			h, err = history.ReplaceEvents(work, l.Resource, evs)
		}
	}
	if err != nil {
		return writes.Result{}, apierrors.NewInternalError(err)
	}
	s.writesMade.Store(int64(n + 1))
	s.setTruthLocked(truth, h, func(j, pos int) int {
		if j == i && pos > p {
			return pos + len(placed)
		}
		return pos
	}, moveUp)
	s.advance(h.Logs[i], p+len(placed)) // a read after the write sees it
	return res, nil
}

// servedNewest is the newest resourceVersion any answer reached, in any
// log of h (a numeric history's): what a write comes after.
func (s *Server) servedNewest(h *history.History) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out uint64
	for _, l := range h.Logs {
		if v, err := strconv.ParseUint(l.RVAt(s.heads[l]), 10, 64); err == nil {
			out = max(out, v)
		}
	}
	return out
}

// after returns the position of l after every event at or before rv.
func after(l *history.Log, rv uint64) int {
	return sort.Search(len(l.Events), func(i int) bool {
		v, err := strconv.ParseUint(l.Events[i].RV(), 10, 64)
		return err == nil && v > rv
	})
}

// eventOf is the log event of typ of obj, a stored object.
func eventOf(typ writes.Event, obj *unstructured.Unstructured, at time.Duration) (history.Event, error) {
	raw, err := json.Marshal(obj.Object)
	if err != nil {
		return history.Event{}, err
	}
	o, _, _, err := history.ParseObject(raw)
	if err != nil {
		return history.Event{}, err
	}
	return history.Event{Type: history.EventType(typ), Object: o, At: at, From: history.Location{File: "write", Event: -1}}, nil
}

// crdAccepted is what kube-apiserver's apiextensions controllers make of
// a CustomResourceDefinition a write stored (created, or changed) that
// they have not accepted yet: its names accepted and it established
// (status.conditions NamesAccepted and Established True, acceptedNames
// the spec's, storedVersions the storage version), at the next
// resourceVersion — the other actor a CRD's creator waits for.
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

// writeState is the state of a log at a position, as a write sees it:
// each Get a keyed lookup (history.Log.ObjectAt, O(log n)), the state
// never built.
type writeState struct {
	l *history.Log
	p int
}

// writeStateOf returns the state of l at position p.
func writeStateOf(l *history.Log, p int) writeState {
	return writeState{l: l, p: p}
}

// Get returns the object stored under key, decoded.
func (st writeState) Get(key string) (*unstructured.Unstructured, bool) {
	o, ok := st.l.ObjectAt(key, st.p)
	if !ok {
		return nil, false
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(o.WithKind(st.l.Resource.Kind, st.l.Resource.GroupVersion())); err != nil {
		return nil, false
	}
	return u, true
}

// kindOf is what a write needs to know of res: whether client-go's scheme
// knows its kind, and whether it has a status subresource (a built-in
// kind whose Go type has a Status field; every custom resource, as
// discovery tells).
func kindOf(res history.Resource) writes.Kind {
	k := writes.Kind{Resource: res, Status: true}
	obj, err := scheme.Scheme.New(schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind})
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

// nameSuffix is the n-th generated name suffix of a run's writes to res:
// 5 characters of nameAlphabet, the same in every run of the same writes.
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
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		status.Write(w, se.ErrStatus)
		return
	}
	status.Write(w, internalError(err))
}
