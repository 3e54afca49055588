package history

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
)

// The recorded client's own writes: see the package doc ("The recorded
// client's writes").

// Write is one write the recorded client made: a request other than GET
// and HEAD to a resource, and its recorded answer.
type Write struct {
	// Verb is kube-apiserver's name of the request
	// (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go). It is
	// "create" (POST), "update" (PUT), "patch" (PATCH), "delete" (DELETE
	// of an object), or "deletecollection" (DELETE of a collection).
	// Another method is in lower case.
	Verb string
	// Resource is the resource written, with the Kind and scope of its
	// log when the history has one.
	Resource Resource
	// Subresource is the subresource written ("status", "scale"), if any.
	Subresource string
	// Key is the object's namespace/name (name when cluster-scoped): the
	// answer's object's, else the request's ("" for a deletecollection,
	// and for a create whose name neither tells).
	Key string
	// Code is the recorded answer's HTTP status code.
	Code int
	// RV and UID are those of the object the answer carried; "" when it
	// carried none (an error, a delete answered with a Status).
	RV, UID string
	// DryRun says the request asked for a dry run: nothing was stored.
	DryRun bool
	// UserAgent, FieldManager and ContentType are the request's User-Agent
	// header, fieldManager parameter and Content-Type header.
	UserAgent, FieldManager, ContentType string
	// At is when the request was sent, since the history's first request;
	// negative when the cassette has no timing.
	At time.Duration
	// From is where it was recorded (Event is -1).
	From Location
	// EchoRV is the resourceVersion of the event of the resource's log
	// that is the write's own change (its echo); "" when the recording
	// shows none.
	EchoRV string
	// Echo is where the echo was recorded (File "" for an event inferred
	// from a relist, and when there is no echo).
	Echo Location
	// Error is the answer's Status, for an answer that is not 2xx.
	Error *RecordedError
}

// Stored reports whether the recorded answer says the write stored a
// change: a 2xx answer to a request that was no dry run.
func (w Write) Stored() bool { return w.Code >= 200 && w.Code < 300 && !w.DryRun }

// String tells the write in one line: "create configmaps ns/a-child: 201
// at 12, echoed (own.yaml: interaction 3)".
func (w Write) String() string {
	what := w.Resource.Resource
	if w.Subresource != "" {
		what += "/" + w.Subresource
	}
	s := fmt.Sprintf("%s %s %s: %d", w.Verb, what, w.Key, w.Code)
	if w.RV != "" {
		s += " at " + w.RV
	}
	if w.EchoRV != "" {
		s += ", echoed"
	}
	return s + " (" + w.From.String() + ")"
}

// writeAnswer is what a write's answer tells: the object, or a Status.
type writeAnswer struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		UID             string `json:"uid"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Details *struct {
		Name string `json:"name"`
		UID  string `json:"uid"`
	} `json:"details"`
}

// writeVerb is WriteVerb, or another method in lower case.
func writeVerb(method, name string) string {
	if v := WriteVerb(method, name); v != "" {
		return v
	}
	return strings.ToLower(method)
}

// parseWrite makes r the record of a write to a resource (q). An answer
// that is no JSON object (another encoding) leaves the write without RV
// and UID: it is listed, its echo not looked for.
func parseWrite(r *record, i cassette.Interaction, u map[string][]string, q RequestInfo, isResource bool) (*record, error) {
	if !isResource || i.Method == http.MethodHead {
		return r, nil
	}
	body, err := readBody(r.loc, &i)
	if err != nil {
		return nil, err
	}
	w := &Write{Verb: writeVerb(i.Method, q.Name), Resource: q.Resource, Subresource: q.Subresource, Code: i.Code,
		DryRun: len(u["dryRun"]) > 0, UserAgent: i.RequestHeader.Get("User-Agent"), ContentType: i.RequestHeader.Get("Content-Type"),
		At: r.started, From: r.loc}
	if fm := u["fieldManager"]; len(fm) > 0 {
		w.FieldManager = fm[0]
	}
	w.Key = keyOf(q.Namespace, q.Name)
	if w.Key == "" && w.Verb == "create" {
		var sent writeAnswer // a JSON create names its object; protobuf is not read here
		if json.Unmarshal(i.RequestBody, &sent) == nil && sent.Metadata.Name != "" {
			w.Key = keyOf(q.Namespace, sent.Metadata.Name)
		}
	}
	var a writeAnswer
	switch {
	case w.Code < 200 || w.Code >= 300:
		w.Error = parseStatus(r.loc, i.Code, body)
	case json.Unmarshal(body, &a) != nil:
	case a.Kind == "Status" && a.Details != nil:
		w.UID = a.Details.UID // kube-apiserver's answer to a delete of most kinds (registry Store.finalizeDelete)
	case a.Kind != "Status" && a.Metadata.Name != "":
		w.Key = keyOf(a.Metadata.Namespace, a.Metadata.Name)
		w.RV, w.UID = a.Metadata.ResourceVersion, a.Metadata.UID
	}
	r.kind, r.write = recWrite, w
	return r, nil
}

// keyOf is the key of namespace/name ("" for no name).
func keyOf(namespace, name string) string {
	switch {
	case name == "":
		return ""
	case namespace == "":
		return name
	}
	return namespace + "/" + name
}

// echoWrites finds, for each stored write in recorded order, the event of
// its resource's log that is its own change. That is the event of its key
// at the RV its answer carried. For a delete answered with a Status (no
// RV), it is the next DELETED of its key, and UID when the Status names
// one. An event recorded before the write was sent is no echo; a write
// that changed nothing answers with the state it found. Each event echoes
// one write at most.
func (h *History) echoWrites() {
	type logIndex struct {
		byKey   map[string][]int // event indexes of each key, in order
		claimed map[int]bool
	}
	index := map[*Log]*logIndex{}
	for k := range h.Writes {
		w := &h.Writes[k]
		l, ok := h.Log(w.Resource)
		if !ok {
			continue
		}
		w.Resource = l.Resource
		if !w.Stored() || w.Key == "" || (w.RV == "" && w.Verb != "delete") {
			continue
		}
		ix := index[l]
		if ix == nil {
			ix = &logIndex{byKey: map[string][]int{}, claimed: map[int]bool{}}
			for n, e := range l.Events {
				ix.byKey[e.Object.Key()] = append(ix.byKey[e.Object.Key()], n)
			}
			index[l] = ix
		}
		for _, n := range ix.byKey[w.Key] {
			e := l.Events[n]
			switch {
			case ix.claimed[n] || (e.At >= 0 && w.At >= 0 && e.At < w.At):
				continue
			case w.RV != "" && e.RV() != w.RV:
				continue
			case w.RV == "" && (e.Type != Deleted || (w.UID != "" && e.Object.UID != w.UID)):
				continue
			}
			ix.claimed[n] = true
			w.EchoRV, w.Echo = e.RV(), e.From
			break
		}
	}
}

// WithoutOwn returns a copy of h as if the recorded client's own writes
// did not happen in it. The echo of each write own reports true for
// (nil: every write) is moved from its log's Events to Own. The next
// event of the same key then changes from the echo's object
// (Event.Prev). So the change another actor made is the difference from
// what the client wrote. h must be as Build made it; an echo not found
// in its log is an error wrapping ErrRewrite.
func WithoutOwn(h *History, own func(Write) bool) (*History, error) {
	drop := map[*Log]map[string]bool{} // per log, key "\x00" RV of the echoes
	for _, w := range h.Writes {
		if w.EchoRV == "" || (own != nil && !own(w)) {
			continue
		}
		l, ok := h.Log(w.Resource)
		if !ok {
			return nil, fmt.Errorf("%w: %s: no log of %s", ErrRewrite, w.From, w.Resource)
		}
		if drop[l] == nil {
			drop[l] = map[string]bool{}
		}
		drop[l][w.Key+"\x00"+w.EchoRV] = true
	}
	out := &History{Discovery: h.Discovery, Errors: h.Errors, Tables: h.Tables, Files: h.Files, Span: h.Span, Writes: h.Writes}
	for _, l := range h.Logs {
		nl := copyLog(l, l.order)
		if d := drop[l]; len(d) > 0 {
			kept := nl.Events[:0]
			for _, e := range nl.Events {
				if d[e.Object.Key()+"\x00"+e.RV()] {
					nl.Own = append(nl.Own, e)
					continue
				}
				kept = append(kept, e)
			}
			if moved := len(nl.Own) - len(l.Own); moved != len(d) {
				return nil, fmt.Errorf("%w: %s: %d of the %d echoes of the client's writes are not in the log (a history changed since Build?)", ErrRewrite, l.Resource, len(d)-moved, len(d))
			}
			nl.Events = kept
			sort.SliceStable(nl.Own, func(i, j int) bool { return nl.order.Less(nl.Own[i].RV(), nl.Own[j].RV()) })
		}
		nl.finish()
		out.Logs = append(out.Logs, nl)
	}
	out.order, out.orderErr = mergeOrders(out.Logs)
	return out, nil
}

// applyOwn applies l's Own events from index k on to last, the newest
// object of each key. It applies those that come before rv, or all of
// them when rv is "", and sets their Prev. It returns the index of the
// first one not applied. finish calls it so that an event's Prev is the
// client's own change when that came last.
func (l *Log) applyOwn(last map[string]*Object, k int, rv string) int {
	for ; k < len(l.Own) && (rv == "" || l.order.Less(l.Own[k].RV(), rv)); k++ {
		e := &l.Own[k]
		key := e.Object.Key()
		e.Prev = last[key]
		if e.Type == Deleted {
			delete(last, key)
		} else {
			last[key] = e.Object
		}
	}
	return k
}
