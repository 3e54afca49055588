package replayer

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/history"
)

// serveGet answers a GET of one object (and of its status subresource,
// which shows the same object): the object at the newest state, or at a
// state not older than the request's resourceVersion, with its kind and
// apiVersion; 404 NotFound when it does not exist there.
func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, q history.Request, l *history.Log) {
	if (l.Resource.Namespaced && q.Namespace == "") || (q.Subresource != "" && q.Subresource != "status") {
		writeStatus(w, r, notFound(r.URL.Path))
		return
	}
	if !isJSONAccept(r) {
		writeStatus(w, r, notAcceptable())
		return
	}
	m := readNotOlderThan
	switch q.ResourceVersion {
	case "":
		m = readConsistent
	case "0":
		m = readAny
	}
	snap, st := s.pickSnapshot(r, l, m, q.ResourceVersion)
	if st != nil {
		writeStatus(w, r, *st)
		return
	}
	for _, o := range l.StateAt(snap.pos) {
		if o.Name == q.Name && o.Namespace == q.Namespace {
			writeJSONAnswer(w, r, "application/json", o.WithKind(l.Resource.Kind, l.Resource.GroupVersion()))
			return
		}
	}
	gr := schema.GroupResource{Group: l.Resource.Group, Resource: l.Resource.Resource}
	writeStatus(w, r, objectNotFound(gr, q.Name))
}
