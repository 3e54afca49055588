package replayer

import (
	"net/http"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

// Server is a model kube-apiserver: it answers every verb of the
// resource paths (LIST, WATCH, GET and the writes), discovery and OpenAPI
// from a history. It routes each request. The served state lives in its
// store, the writes go through its engine, and a fault plan's run says
// where faults strike. It is safe for concurrent use.
type Server struct {
	h     *history.History // the history it was made with, kinds resolved
	opts  options
	start time.Time // the clock's start (pace, timeouts, firings)

	store *store    // the served state (store.go)
	eng   *engine   // the write path (engine.go)
	fx    *faultRun // the fault plan being acted out; nil without one
	// restart is what apiserver-restart left (faults_restart.go).
	restart *restarts
	storms  *stormDetector // nil without storm detection
	openAPI openAPICache   // the OpenAPI documents last served (openapi.go)
	// setupErr says why the server cannot serve its history: every
	// request answers it, 500.
	setupErr error
}

// New returns a server for h. Its clock (for pace and timeouts) starts now.
func New(h *history.History, opts ...Option) *Server {
	o := defaults()
	for _, fn := range opts {
		fn(&o)
	}
	h = resolveKinds(h) // every log's kind and scope, as served (crd.go)
	s := &Server{h: h, opts: o, start: time.Now(), restart: newRestarts()}
	e, served, err := newEngine(h, &s.opts, s.start)
	s.h, s.eng, s.store, s.setupErr = served, e, e.store, err
	if o.plan != nil {
		s.fx = newFaultRun(*o.plan, s.start)
		s.fx.startPlan(s)
	}
	if o.storm {
		s.storms = newStormDetector(o.stormWindow, o.stormLimit)
	}
	return s
}

// History returns the history the server was made with; under a fault
// plan or with writes it may serve a changed one (see Served).
func (s *Server) History() *history.History { return s.h }

// Served returns the history the server serves now. A fault plan's
// transforms change it (opaque-rv rewrites every resourceVersion,
// recreate adds a delete and a create), and so does every stored write.
// A client that converges ends with its final state. Without either it
// is History().
func (s *Server) Served() *history.History { return s.store.history() }

// Truth returns the history the server serves now.
//
// Deprecated: use Served.
func (s *Server) Truth() *history.History { return s.Served() }

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.setupErr != nil {
		status.Write(w, internalError(s.setupErr))
		return
	}
	if s.fx != nil && s.restart.down() { // restarting (apiserver-restart): nothing is answered
		refuseConnection(w)
		return
	}
	if r.Method != http.MethodGet {
		s.serveWrite(w, r)
		return
	}
	q, isResource, err := history.ParseRequestInfo(r.URL)
	if err != nil {
		status.Write(w, badRequest(err.Error()))
		return
	}
	if !isResource {
		s.serveDiscovery(w, r)
		return
	}
	s.eng.collectGarbage() // what has happened since the last request: an owner's deletion the pace made current
	l, ok := s.eng.logFor(q, nil)
	if !ok {
		status.Write(w, noTrafficFor(s.store.discovery(), s.h, q.Resource))
		return
	}
	if q.Namespace != "" && !l.Resource.Namespaced {
		status.Write(w, status.NotFound())
		return
	}
	mv, st := metadataFor(r)
	if st != nil {
		status.Write(w, *st)
		return
	}
	if mv != nil {
		r = withMetadata(r, mv)
	} else {
		tv, st := s.tableFor(r, l)
		if st != nil {
			status.Write(w, *st)
			return
		}
		if tv != nil {
			r = withTable(r, tv)
		}
	}
	r, answered := s.trackStorm(r, q, l)
	defer answered()
	switch {
	case q.Name != "" && q.Watch:
		// watch of one object: a watch with a metadata.name field selector
		q.FieldSelector = joinSelectors(q.FieldSelector, "metadata.name="+q.Name)
		q.Name = ""
		s.serveWatch(w, r, q, l)
	case q.Name != "":
		s.serveGet(w, r, q, l)
	case q.Watch:
		s.serveWatch(w, r, q, l)
	default:
		s.serveList(w, r, q, l)
	}
}

func joinSelectors(a, b string) string {
	if a == "" {
		return b
	}
	return a + "," + b
}

// acceptable reports whether the replayer can answer r about res in an
// encoding r accepts: JSON, or protobuf for a built-in kind
// (prefersProtobuf).
func acceptable(r *http.Request, res history.Resource) bool {
	return isJSONAccept(r) || prefersProtobuf(r, gvkOf(res))
}

// isJSONAccept reports whether the client accepts JSON, the replayer's
// encoding of every kind.
func isJSONAccept(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return a == "" || strings.Contains(a, "json") || strings.Contains(a, "*/*")
}
