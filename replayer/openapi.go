package replayer

import (
	"crypto/sha256"
	"net/http"
	"sort"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
	"github.com/lwreplay/lwreplay/replayer/openapi"
)

// openAPICache holds the OpenAPI documents last served: made again only
// when the CRDs of the served history changed.
type openAPICache struct {
	last atomic.Pointer[openAPIMemo] // nil before the first
}

// openAPIMemo is the OpenAPI documents of the CRDs the served history
// last held when asked (see openAPICache.docs).
type openAPIMemo struct {
	key  [sha256.Size]byte
	docs *openapi.Docs
}

// serveOpenAPI answers /openapi/v2, /openapi/v3 and the group version
// documents (package openapi) for the built-in resources and the custom
// resources whose CRD the served history holds.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	d, err := s.openAPI.docs(s.store.history())
	if err != nil {
		status.Write(w, apierrors.NewInternalError(err).ErrStatus)
		return
	}
	d.Serve(w, r, time.Now())
}

// docs returns the documents of the CRDs h (the served history) holds,
// each in its newest state, as discovery lists them. They are made again
// only when they changed.
func (c *openAPICache) docs(h *history.History) (*openapi.Docs, error) {
	raws := crdObjects(h)
	sum := sha256.New()
	for _, r := range raws {
		sum.Write(r)
		sum.Write([]byte{0})
	}
	var key [sha256.Size]byte
	copy(key[:], sum.Sum(nil))
	if m := c.last.Load(); m != nil && m.key == key {
		return m.docs, nil
	}
	var crds []openapi.CRD
	for _, r := range raws {
		cs, err := openapi.CRDsOf(r)
		if err != nil {
			continue // not a CRD kube-apiserver would hold; discovery leaves it out too
		}
		crds = append(crds, cs...)
	}
	d, err := openapi.New(crds)
	if err != nil {
		return nil, err
	}
	c.last.Store(&openAPIMemo{key: key, docs: d})
	return d, nil
}

// crdObjects returns the CustomResourceDefinitions of h, each in its
// newest state (as history.Log.CRDs), by key.
func crdObjects(h *history.History) [][]byte {
	l, ok := h.Log(history.CRD)
	if !ok {
		return nil
	}
	newest := map[string][]byte{}
	for _, o := range l.Initial {
		newest[o.Key()] = o.Raw
	}
	for _, e := range l.Events {
		newest[e.Object.Key()] = e.Object.Raw
	}
	keys := make([]string, 0, len(newest))
	for k := range newest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = newest[k]
	}
	return out
}
