package replayer

import (
	"context"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/table"
)

// Table answers (see package table). A request may ask a LIST, a GET or
// each WATCH event's object as a Table. Its columns are the first of
// these that applies:
//   - those of a recorded Table answer to the same page
//     (history.History.Tables), served as recorded;
//   - the printer columns of a custom resource's CustomResourceDefinition,
//     when the history holds it (table.ForCRD);
//   - kube-apiserver's default convertor's, Name and Created At
//     (table.Default).

// crdGroup and crdResource name the CustomResourceDefinitions resource.
const (
	crdGroup    = "apiextensions.k8s.io"
	crdResource = "customresourcedefinitions"
)

// tableView is how a request asked for a Table: the view that renders
// it, and the recorded Table answers to the request's resource. Those
// are in the Table's apiVersion, for a LIST to serve as recorded.
type tableView struct {
	*table.View
	recorded     []history.RecordedTable
	noWatchCache bool // the server has no watch cache (WithoutWatchCache)
}

type tableKey struct{}

// withTable returns r carrying tv, for the answer to read (tableOf).
func withTable(r *http.Request, tv *tableView) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), tableKey{}, tv))
}

// tableOf returns the Table r asked for; nil when it asked for none.
func tableOf(r *http.Request) *tableView {
	tv, _ := r.Context().Value(tableKey{}).(*tableView)
	return tv
}

// tableFor returns the Table the request asks for of l's resource, or nil
// when it asks for none. For invalid Table options it returns the 400
// kube-apiserver answers (optionsForTransform).
func (s *Server) tableFor(r *http.Request, l *history.Log) (*tableView, *metav1.Status) {
	apiVersion, ok := table.Accept(r.Header.Get("Accept"))
	if !ok {
		return nil, nil
	}
	include, err := table.ParseOptions(r.URL.Query())
	if err != nil {
		st := badRequest(err.Error())
		return nil, &st
	}
	tv := &tableView{View: table.NewView(apiVersion, include, convertorFor(s.store, l.Resource)), noWatchCache: s.opts.noWatchCache}
	if s.store.history() == s.h { // a plan that rewrites the history makes recorded answers untrue
		for _, t := range s.h.Tables {
			if t.Request.Resource.ID() == l.Resource.ID() && t.APIVersion == apiVersion {
				tv.recorded = append(tv.recorded, t)
			}
		}
	}
	return tv, nil
}

// convertorFor returns the Table convertor kube-apiserver uses for res.
// It is the printer columns of its CustomResourceDefinition, as st's
// newest served state holds it, or the default one.
func convertorFor(st *store, res history.Resource) table.Convertor {
	if res.Group == "" {
		return table.Default()
	}
	if o, ok := st.crdOf(res.Group, res.Resource); ok {
		return table.ForCRD(o.Raw, res.Version)
	}
	return table.Default()
}

// crdOf returns the CustomResourceDefinition of resource group/resource in
// the newest state of the served history served so far, when it holds
// one.
func (st *store) crdOf(group, resource string) (*history.Object, bool) {
	for _, l := range st.history().Logs {
		if l.Resource.Group != crdGroup || l.Resource.Resource != crdResource {
			continue
		}
		for _, o := range l.StateAt(max(st.head(l), st.available(l))) {
			if o.Name == resource+"."+group {
				return o, true
			}
		}
	}
	return nil, false
}

// list renders page p of l's state at rv as the Table tv asks for. It is
// a recorded Table answer to the same page when the history holds one,
// otherwise the Table of tv's convertor.
func (tv *tableView) list(r *http.Request, l *history.Log, rv string, p page) ([]byte, error) {
	if body, ok := tv.recordedPage(r, rv); ok {
		return body, nil
	}
	lm := metav1.ListMeta{ResourceVersion: rv, RemainingItemCount: p.remaining}
	if p.next != "" {
		lm.Continue = continueToken{rv: rv, start: p.next}.encode()
	}
	objs := make([][]byte, len(p.items))
	for i, o := range p.items {
		objs[i] = withKind(o, l.Resource.Kind, l.Resource.GroupVersion())
	}
	return tv.Render(objs, lm, true)
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
func (tv *tableView) pageKeyOf(q history.RequestInfo, includeObject string) (pageKey, bool) {
	f, err := newFilter(q)
	if err != nil {
		return pageKey{}, false
	}
	k := pageKey{namespace: q.Namespace, labels: f.labels.String(), fields: f.fields.String(), limit: q.Limit,
		include: metav1.IncludeObjectPolicy(includeObject)}
	if k.include == "" {
		k.include = metav1.IncludeMetadata // kube-apiserver's default
	}
	if q.ResourceVersion == "0" && !tv.noWatchCache {
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
// rv. Its request picked the same page (pageKey) and its resourceVersion
// is rv, so that it shows the same objects.
func (tv *tableView) recordedPage(r *http.Request, rv string) ([]byte, bool) {
	if len(tv.recorded) == 0 {
		return nil, false
	}
	q, _, err := history.ParseRequestInfo(r.URL)
	if err != nil {
		return nil, false
	}
	want, ok := tv.pageKeyOf(q, string(tv.Include()))
	if !ok {
		return nil, false
	}
	for _, t := range tv.recorded {
		if t.RV != rv {
			continue
		}
		if k, ok := tv.pageKeyOf(t.Request, t.IncludeObject); ok && k == want {
			return t.Body, true
		}
	}
	return nil, false
}
