package replayer

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/weakcache"
	"github.com/lwreplay/lwreplay/replayer/discovery"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
	"github.com/lwreplay/lwreplay/replayer/openapi"
)

// resourcesOf returns the resources h has a log of, in log order: the
// ones the server serves, which discovery tells.
func resourcesOf(h *history.History) []history.Resource {
	out := make([]history.Resource, len(h.Logs))
	for i, l := range h.Logs {
		out[i] = l.Resource
	}
	return out
}

// serveDiscovery answers the non-resource paths clients ask (see package
// discovery): /version, /api, /apis and the group and group version
// paths. Any other path is a 404.
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request) {
	if openapi.IsPath(r.URL.Path) {
		s.serveOpenAPI(w, r)
		return
	}
	a, ok := s.store.discovery().Answer(r.URL.Path, r.Header.Get("Accept"), r.Host)
	if !ok {
		status.Write(w, status.NotFound())
		return
	}
	if a.VaryAccept {
		w.Header().Set("Vary", "Accept")
	}
	writeJSONAnswer(w, r, a.ContentType, a.Body)
}

// noTrafficFor returns the 404 for a request of a resource the history
// has no log of. The Doc d is what discovery tells. The history recorded
// is the one the server was made with. When discovery lists res, the
// message says that the cassette holds no traffic for it.
func noTrafficFor(d *discovery.Doc, recorded *history.History, res history.Resource) metav1.Status {
	st := status.NotFound()
	if !d.Lists(res) {
		return st
	}
	have := []string{}
	for _, l := range recorded.Logs {
		have = append(have, l.Resource.String())
	}
	if len(have) == 0 {
		have = append(have, "no resource")
	}
	st.Message = fmt.Sprintf("the server could not find the requested resource: the cassette holds no list or watch traffic for %s "+
		"(its recorded discovery lists it); this replay answers %s", res.String(), strings.Join(have, ", "))
	st.Details = &metav1.StatusDetails{Group: res.Group, Kind: res.Resource}
	return st
}

// discoveryOf returns what discovery tells of h, the served history: its
// recorded answers and the resources it serves. A replay that makes logs
// (makesLogs) adds the built-in resources (discovery.Builtin). It serves
// them from empty when h has no log of them (see logFor). It adds the
// custom resources whose CRD h holds (see crd.go). The order is one a
// request making such a log does not change. It is the recorded history's
// logs, the built-in resources, the CRDs' resources, then the other logs
// made since.
func (e *engine) discoveryOf(h *history.History) *discovery.Doc {
	if h != e.recorded {
		return e.makeDiscovery(h)
	}
	// a server's start: the same for every server of h with these options
	docs := discoveryMemo.Get(h, func(*history.History) *discoveryDocs {
		return &discoveryDocs{by: map[discoveryKey]*discovery.Doc{}}
	})
	k := discoveryKey{makesLogs: e.makesLogs(), gitVersion: e.opts.gitVersion}
	docs.mu.Lock()
	defer docs.mu.Unlock()
	d, ok := docs.by[k]
	if !ok {
		d = e.makeDiscovery(h)
		docs.by[k] = d
	}
	return d
}

// discoveryDocs are the discovery documents of one history's servers, by
// the options they depend on.
type discoveryDocs struct {
	mu sync.Mutex // guards by
	by map[discoveryKey]*discovery.Doc
}

// discoveryKey is what a history's discovery depends on beside it.
type discoveryKey struct {
	makesLogs  bool
	gitVersion string
}

// discoveryMemo holds the discovery documents servers start with, by
// the history they serve.
var discoveryMemo weakcache.Cache[history.History, *discoveryDocs]

// makeDiscovery makes discoveryOf's document.
func (e *engine) makeDiscovery(h *history.History) *discovery.Doc {
	resources := resourcesOf(h)
	crds, recorded := crdDiscovery(h.Discovery, h.CRDs()) // the CRDs' names (crd.go)
	if !e.makesLogs() {
		return discovery.New(recorded, resources, e.opts.gitVersion)
	}
	served := make(map[history.Resource]history.Resource, len(resources))
	for _, r := range resources {
		served[r.ID()] = r
	}
	out := make([]history.Resource, 0, len(resources))
	listed := map[history.Resource]bool{}
	add := func(r history.Resource) {
		if !listed[r.ID()] {
			listed[r.ID()] = true
			out = append(out, r)
		}
	}
	for _, l := range e.recorded.Logs {
		if r, ok := served[l.Resource.ID()]; ok {
			add(r)
		}
	}
	for _, b := range discovery.Builtin() {
		if r, ok := served[b.ID()]; ok {
			b = r
		}
		add(b)
	}
	for _, c := range crds { // served from empty, as the built-in ones
		if r, ok := served[c.ID()]; ok {
			c = r
		}
		add(c)
	}
	for _, r := range resources {
		add(r)
	}
	return discovery.NewTakingWrites(recorded, out, e.opts.gitVersion)
}
