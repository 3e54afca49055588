package replayer

import (
	"encoding/json"
	"net/http"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
	"github.com/lwreplay/lwreplay/replayer/writes"
)

// serveGet answers a GET of one object. It also answers one of its status
// subresource, which shows the same object, and of its scale subresource,
// its Scale. The answer is the object at the newest state, or at a state
// not older than the request's resourceVersion. It has its kind and
// apiVersion, or is a Table of one row when the request asked for one.
// It is 404 NotFound when the object does not exist there.
func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, q history.RequestInfo, l *history.Log) {
	scale := q.Subresource == "scale" && writes.HasScale(kindOf(l.Resource))
	if (l.Resource.Namespaced && q.Namespace == "") || (q.Subresource != "" && q.Subresource != "status" && !scale) {
		status.Write(w, status.NotFound())
		return
	}
	if !acceptable(r, l.Resource) {
		status.Write(w, notAcceptable())
		return
	}
	m := readNotOlderThan
	switch q.ResourceVersion {
	case "":
		m = readConsistent
	case "0":
		m = readAny
	}
	snap, st := s.store.pickSnapshot(r.Context(), l, m, q.ResourceVersion, s.opts.tooLargeWait)
	if st != nil {
		status.Write(w, *st)
		return
	}
	if o := findObject(l.StateAt(snap.pos), q.Namespace, q.Name); o != nil {
		if !scale && prefersProtobuf(r, gvkOf(l.Resource)) {
			if opb := objectProtobuf(o, l.Resource); opb.err == nil {
				writeProtobuf(w, http.StatusOK, opb.pb)
				return
			}
		}
		body := o.WithKind(l.Resource.Kind, l.Resource.GroupVersion())
		if scale {
			serveScale(w, r, l, body)
			return
		}
		if mv := metadataOf(r); mv != nil {
			if st := mv.getStatus(l.Resource); st != nil {
				status.Write(w, *st)
				return
			}
			var err error
			if body, err = mv.object(body); err != nil {
				status.Write(w, internalError(err))
				return
			}
		} else if tv := tableOf(r); tv != nil {
			var err error
			if body, err = tv.Render([][]byte{body}, metav1.ListMeta{ResourceVersion: o.ResourceVersion}, true); err != nil {
				status.Write(w, internalError(err))
				return
			}
		}
		writeJSONAnswer(w, r, "application/json", body) // a protobuf answer went above
		return
	}
	gr := schema.GroupResource{Group: l.Resource.Group, Resource: l.Resource.Resource}
	status.Write(w, objectNotFound(gr, q.Name))
}

// serveScale answers a GET of the scale subresource: the object's
// autoscaling/v1 Scale (writes.ScaleOf), as JSON (not as a Table).
func serveScale(w http.ResponseWriter, r *http.Request, l *history.Log, obj []byte) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(obj); err != nil {
		status.Write(w, internalError(err))
		return
	}
	sc, err := writes.ScaleOf(kindOf(l.Resource), u)
	if err != nil {
		writeStatusErr(w, err)
		return
	}
	body, err := json.Marshal(sc.Object)
	if err != nil {
		status.Write(w, internalError(err))
		return
	}
	writeJSONAnswer(w, r, "application/json", body)
}

// findObject returns the object of state (sorted by key) named name in
// namespace ns ("" for a cluster-scoped one), or nil, by binary search.
func findObject(state []*history.Object, ns, name string) *history.Object {
	key := name
	if ns != "" {
		key = ns + "/" + name
	}
	i := sort.Search(len(state), func(i int) bool { return state[i].Key() >= key })
	if i < len(state) && state[i].Name == name && state[i].Namespace == ns {
		return state[i]
	}
	return nil
}
