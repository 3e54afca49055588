package replayer

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/discovery"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

// Server answers LIST, WATCH and discovery requests from a history.
// It is safe for concurrent use.
type Server struct {
	h     *history.History
	opts  options
	start time.Time

	mu    sync.Mutex
	heads map[*history.Log]int // newest position any answer reached
	// reached holds, per log, the number of events before the first whose
	// recorded offset the paced clock has not reached (see available).
	reached map[*history.Log]int
	// listings holds each resource's first complete listing's RV, by
	// Resource.ID (see FirstListing).
	listings map[history.Resource]string
	// floors holds the compaction point a fault's 410 Expired moved each
	// resource's to, by Resource.ID (see compactThrough).
	floors map[history.Resource]string

	fx      *faultRun // the fault plan being acted out; nil without one
	restart *restarts // what apiserver-restart left (faults_restart.go)

	disco   atomic.Pointer[discovery.Doc] // what discovery tells (a resource a write makes joins it)
	openAPI atomic.Pointer[openAPIMemo]   // the OpenAPI documents last served (openapi.go)

	storms *stormDetector // nil without storm detection

	writeMu    sync.Mutex                      // one write at a time (without a plan: see lockTruth)
	written    atomic.Pointer[history.History] // the history with the writes, without a plan; nil before the first
	writesMade atomic.Int64                    // writes stored (they name their UIDs and generated names)
	collected  atomic.Int64                    // the target's objects the garbage collector deleted (Collected)
	gc         collector                       // the objects the target's writes own (gc.go)
	changed    atomic.Pointer[chan struct{}]   // closed when a write changes the served history
	setupErr   error                           // why the server cannot serve its history: every request answers it, 500

	// actors holds what the replay keeps of the recorded changes it serves
	// as other writers' writes (see actors.go); under lockTruth.
	actors   *otherActors
	writeLog writeLog // the write requests answered (see Writes)
}

// New returns a server for h. Its clock (for pace and timeouts) starts now.
func New(h *history.History, opts ...Option) *Server {
	o := defaults()
	for _, fn := range opts {
		fn(&o)
	}
	h = resolveKinds(h) // every log's kind and scope, as served (crd.go)
	s := &Server{h: h, opts: o, start: time.Now(), heads: map[*history.Log]int{}, reached: map[*history.Log]int{}, listings: map[history.Resource]string{}, floors: map[history.Resource]string{}, actors: newOtherActors(), restart: newRestarts()}
	if hasOwn(h) { // a recorded client's own changes left out (history.WithoutOwn): the other actors' history
		if r, err := withoutOwnRebased(h, s.actors, s.start, o.pace.factor()); err != nil {
			s.setupErr = fmt.Errorf("the other actors' history (history.WithoutOwn): %w", err)
		} else {
			s.h = r
		}
	}
	s.disco.Store(s.discoveryOf(s.h))
	changed := make(chan struct{})
	s.changed.Store(&changed)
	s.startPlan()
	s.startStorms()
	return s
}

// History returns the history the server was made with; under a fault
// plan it may serve a transformed one (see Truth).
func (s *Server) History() *history.History { return s.h }

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.setupErr != nil {
		status.Write(w, internalError(s.setupErr))
		return
	}
	if s.down() { // restarting (apiserver-restart): nothing is answered
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
	s.collectGarbage() // what has happened since the last request: an owner's deletion the pace made current
	l, ok := s.logFor(q, nil)
	if !ok {
		status.Write(w, s.noTrafficFor(q.Resource))
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

// available returns the newest position of l whose events may be served
// now, under the server's pace: past the events whose recorded offsets the
// paced clock has reached, stopping at the first it has not (or the head,
// if that is newer). The clock only moves forward, so the count of events
// reached is kept and each call looks only at the events after it.
func (s *Server) available(l *history.Log) int {
	if s.opts.pace.Mode == PaceMax {
		return l.End()
	}
	virt := s.pacedNow()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.reached[l]
	for n < l.End() && l.Events[n].At <= virt {
		n++
	}
	s.reached[l] = n
	return max(n, s.heads[l])
}

// pacedNow is the paced clock: the recorded offset the replay has reached
// (the time since the server started, times the pace's factor).
func (s *Server) pacedNow() time.Duration {
	if v := float64(time.Since(s.start)) * s.opts.pace.factor(); v < math.MaxInt64 {
		return time.Duration(v)
	}
	return time.Duration(math.MaxInt64) // a factor so large the clock is past every offset
}

// pacedHappened is the recorded offset up to which every recorded event
// has happened: pacedNow, or every offset under PaceMax.
func (s *Server) pacedHappened() time.Duration {
	if s.opts.pace.Mode == PaceMax {
		return time.Duration(math.MaxInt64)
	}
	return s.pacedNow()
}

// nextAt returns how long until event pos becomes available under the
// pace; 0 if it is available now.
func (s *Server) nextAt(l *history.Log, pos int) time.Duration {
	if s.opts.pace.Mode == PaceMax || pos >= l.End() || pos < s.available(l) {
		return 0
	}
	at := time.Duration(float64(l.Events[pos].At) / s.opts.pace.factor())
	if d := at - time.Since(s.start); d > 0 {
		return d
	}
	return 0
}

// head returns the newest position any answer reached.
func (s *Server) head(l *history.Log) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heads[l]
}

// advance records that an answer reached pos.
func (s *Server) advance(l *history.Log, pos int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pos > s.heads[l] {
		s.heads[l] = pos
	}
}

// isJSONAccept reports whether the client accepts JSON (the only encoding
// the replayer speaks).
func isJSONAccept(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return a == "" || strings.Contains(a, "json") || strings.Contains(a, "*/*")
}
