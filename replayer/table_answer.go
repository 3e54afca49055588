package replayer

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/history"
)

// tableList renders page p of l's state at rv as the Table tv asks for: a
// recorded Table answer to the same page when the history holds one,
// otherwise the Table of tv's convertor.
func (s *Server) tableList(r *http.Request, tv *tableView, l *history.Log, rv string, p page) ([]byte, error) {
	if body, ok := s.recordedPage(r, tv, rv); ok {
		return body, nil
	}
	lm := metav1.ListMeta{ResourceVersion: rv, RemainingItemCount: p.remaining}
	if p.next != "" {
		lm.Continue = continueToken{rv: rv, start: p.next}.encode()
	}
	objs := make([]tableObject, len(p.items))
	for i, o := range p.items {
		objs[i] = withKind(o, l.Resource.Kind, l.Resource.GroupVersion())
	}
	return tv.render(objs, lm, true)
}

// pageKey is what picks a LIST page: the collection, the selectors, the
// effective page size, where the page starts and which object a row
// carries.
type pageKey struct {
	namespace, labels, fields string
	limit                     int64
	start                     string
	include                   metav1.IncludeObjectPolicy
}

// pageKeyOf returns the page key of LIST request q asking includeObject;
// ok is false when q cannot be read (its selectors or continue token).
func (s *Server) pageKeyOf(q history.Request, includeObject string) (pageKey, bool) {
	f, err := newFilter(q)
	if err != nil {
		return pageKey{}, false
	}
	k := pageKey{namespace: q.Namespace, labels: f.labels.String(), fields: f.fields.String(), limit: q.Limit,
		include: metav1.IncludeObjectPolicy(includeObject)}
	if k.include == "" {
		k.include = metav1.IncludeMetadata // kube-apiserver's default
	}
	if q.ResourceVersion == "0" && !s.opts.noWatchCache {
		k.limit = 0 // as serveList: the watch cache ignores the limit
	}
	if q.Continue != "" {
		tok, err := decodeContinue(q.Continue)
		if err != nil {
			return pageKey{}, false
		}
		k.start = tok.start
	}
	return k, true
}

// recordedPage returns a recorded Table answer to the page r asks for at
// rv: one whose request picked the same page (pageKey) and whose
// resourceVersion is rv, so that it shows the same objects.
func (s *Server) recordedPage(r *http.Request, tv *tableView, rv string) ([]byte, bool) {
	if len(tv.recorded) == 0 {
		return nil, false
	}
	q, _, err := history.ParseRequest(r.URL)
	if err != nil {
		return nil, false
	}
	want, ok := s.pageKeyOf(q, string(tv.include))
	if !ok {
		return nil, false
	}
	for _, t := range tv.recorded {
		if t.RV != rv {
			continue
		}
		if k, ok := s.pageKeyOf(t.Request, t.IncludeObject); ok && k == want {
			return t.Body, true
		}
	}
	return nil, false
}
