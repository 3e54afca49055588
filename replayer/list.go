package replayer

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

// Messages of kube-apiserver's LIST answers (k8s.io/apiserver
// pkg/storage/etcd3/errors.go and pkg/storage/interfaces.go).
const (
	listTooOldMessage = "The resourceVersion for the provided list is too old."
	continueTooOldMsg = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided " +
		"token results in an inconsistent list - objects that were created, " +
		"modified, or deleted between the time the first chunk was returned " +
		"and now may show up in the list."
	continueWithRVMessage = "specifying resource version is not allowed when using continue"
)

// serveList answers a LIST: the page of the selected objects in key order
// at the snapshot the request's resourceVersion, resourceVersionMatch or
// continue token picks.
func (s *Server) serveList(w http.ResponseWriter, r *http.Request, q history.RequestInfo, l *history.Log) {
	if !acceptable(r, l.Resource) {
		status.Write(w, notAcceptable())
		return
	}
	if st := validateList(q); st != nil {
		status.Write(w, *st)
		return
	}
	f, err := newFilter(q)
	if err != nil {
		status.Write(w, badRequest(err.Error()))
		return
	}
	// kube-apiserver's watch cache ignores the limit of an RV "0" list
	// (cacher.computeListLimit): the answer is one page.
	limit := q.Limit
	if q.ResourceVersion == "0" && !s.opts.noWatchCache {
		limit = 0
	}
	if s.listPoint(w, r, q, l, f, limit) {
		return
	}
	var snap snapshot
	var st *metav1.Status
	start := ""
	if q.Continue != "" {
		tok, err := decodeContinue(q.Continue)
		if err != nil {
			status.Write(w, badRequest("invalid continue token: "+err.Error()))
			return
		}
		if q.ResourceVersion != "" && q.ResourceVersion != "0" {
			status.Write(w, badRequest(continueWithRVMessage))
			return
		}
		snap, st = s.store.continueSnapshot(r.Context(), l, tok, s.opts.tooLargeWait)
		start = tok.start
	} else {
		snap, st = s.store.pickSnapshot(r.Context(), l, listReadMode(q), q.ResourceVersion, s.opts.tooLargeWait)
	}
	if st != nil {
		status.Write(w, *st)
		return
	}
	s.answerList(w, r, l, snap.rv, paginate(l.StateAt(snap.pos), f, q.Namespace, start, limit))
}

// validateList checks the list options as kube-apiserver's
// ValidateListOptions does; the answer is a 422 Invalid.
func validateList(q history.RequestInfo) *metav1.Status {
	var errs field.ErrorList
	matchPath := field.NewPath("resourceVersionMatch")
	if m := q.ResourceVersionMatch; m != "" {
		if q.ResourceVersion == "" {
			errs = append(errs, field.Forbidden(matchPath, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if q.Continue != "" {
			errs = append(errs, field.Forbidden(matchPath, "resourceVersionMatch is forbidden when continue is provided"))
		}
		if m != string(metav1.ResourceVersionMatchExact) && m != string(metav1.ResourceVersionMatchNotOlderThan) {
			errs = append(errs, field.NotSupported(matchPath, m, []string{string(metav1.ResourceVersionMatchExact), string(metav1.ResourceVersionMatchNotOlderThan), ""}))
		}
		if m == string(metav1.ResourceVersionMatchExact) && q.ResourceVersion == "0" {
			errs = append(errs, field.Forbidden(matchPath, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
		}
	}
	if q.SendInitialEvents != nil {
		errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
	}
	if len(errs) == 0 {
		return nil
	}
	st := apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs).ErrStatus
	return &st
}

// page is one LIST answer's share of a snapshot.
type page struct {
	items []*history.Object
	// next is the continue token's start key; "" on the last page.
	next string
	// remaining is remainingItemCount; nil when unknown or on the last page.
	remaining *int64
}

// paginate selects the objects of state (sorted by key) that f matches,
// from the key start on, at most limit of them (0: all). It does as
// kube-apiserver's watch cache does. A page is the last when no object of
// the listed collection follows its last item. The remainingItemCount is
// only known without selectors. The function finds where the
// collection's objects from start on begin and end by binary search. So a
// page costs what it holds (and the objects f skips), not the whole state.
func paginate(state []*history.Object, f filter, ns, start string, limit int64) page {
	scoped := collection(state, ns)
	scoped = scoped[sort.Search(len(scoped), func(i int) bool { return relativeKey(scoped[i], ns) >= start }):]
	p := page{items: []*history.Object{}}
	for i, o := range scoped {
		if !f.match(o) {
			continue
		}
		p.items = append(p.items, o)
		if limit > 0 && int64(len(p.items)) >= limit {
			if i < len(scoped)-1 {
				p.next = relativeKey(o, ns) + "\x00"
				if f.labels.Empty() && f.fields.Empty() {
					n := int64(len(scoped)) - limit
					p.remaining = &n
				}
			}
			break
		}
	}
	return p
}

// collection returns the part of state (sorted by key) a LIST of
// namespace ns (all namespaces: "") lists. The keys "ns/..." hold one run
// of the sorted keys, as no name holds a "/".
func collection(state []*history.Object, ns string) []*history.Object {
	if ns == "" {
		return state
	}
	from := sort.Search(len(state), func(i int) bool { return state[i].Key() >= ns+"/" })
	to := from + sort.Search(len(state)-from, func(i int) bool { return state[from+i].Namespace != ns })
	return state[from:to]
}

// relativeKey is an object's storage key relative to the listed
// collection, as continue tokens carry it. It is "/ns/name" for all
// namespaces, "/name" in a namespace or for a cluster-scoped resource.
func relativeKey(o *history.Object, ns string) string {
	if ns != "" {
		return "/" + o.Name
	}
	return "/" + o.Key()
}

// listBody renders a list answer as kube-apiserver does. A built-in
// kind's items have no kind and apiVersion (a typed list's encoding).
// Every other kind's have them. A custom resource's list is apiextensions'
// unstructured list, whose items keep their own
// (customresource_handler.go; recorded from kube-apiserver 1.37 in
// examples/widgets' cassettes).
func listBody(res history.Resource, rv string, p page) []byte {
	var b bytes.Buffer
	size := 256
	for _, o := range p.items {
		size += len(o.Raw) + 1
	}
	typed := kindOf(res).Builtin
	b.Grow(size)
	b.WriteString(`{"kind":`)
	writeJSONStr(&b, res.Kind+"List")
	b.WriteString(`,"apiVersion":`)
	writeJSONStr(&b, res.GroupVersion())
	b.WriteString(`,"metadata":{"resourceVersion":`)
	writeJSONStr(&b, rv)
	if p.next != "" {
		b.WriteString(`,"continue":`)
		writeJSONStr(&b, continueToken{rv: rv, start: p.next}.encode())
	}
	if p.remaining != nil {
		b.WriteString(`,"remainingItemCount":` + strconv.FormatInt(*p.remaining, 10))
	}
	b.WriteString(`},"items":[`)
	for i, o := range p.items {
		if i > 0 {
			b.WriteByte(',')
		}
		if typed {
			b.Write(o.Raw)
		} else {
			b.Write(withKind(o, res.Kind, res.GroupVersion()))
		}
	}
	b.WriteString("]}")
	return b.Bytes()
}

// writeJSONAnswer writes a 200 answer, pretty-printed when kube-apiserver
// would (?pretty=true, or curl, Wget or a browser as user agent).
func writeJSONAnswer(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	writeJSONCode(w, r, http.StatusOK, contentType, body)
}

// writeJSONCode is writeJSONAnswer with another status code (a write's
// 201 or 202).
func writeJSONCode(w http.ResponseWriter, r *http.Request, code int, contentType string, body []byte) {
	body = bytes.TrimRight(body, " \t\r\n") // one newline ends the answer
	if prettyRequested(r) {
		var ind bytes.Buffer
		if json.Indent(&ind, body, "", "  ") == nil {
			body = ind.Bytes()
		}
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(code)
	w.Write(body)
	w.Write([]byte("\n"))
}

// prettyRequested mirrors kube-apiserver's negotiation.isPrettyPrint.
func prettyRequested(r *http.Request) bool {
	if pp := r.URL.Query().Get("pretty"); pp != "" {
		b, _ := strconv.ParseBool(pp)
		return b
	}
	ua := r.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}

// notAcceptable is the 406 for a client that accepts no JSON.
func notAcceptable() metav1.Status {
	return metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotAcceptable, Reason: metav1.StatusReasonNotAcceptable,
		Message: "only the following media types are accepted: application/json",
	}
}
