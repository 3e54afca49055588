package replayer

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/discovery"
	"github.com/lwreplay/lwreplay/replayer/writes"
)

// engine is the write path, as etcd's apply beside its mvcc store. It
// answers writes on the served state. It makes every change of the served
// history, one at a time. The writes are the target's, the
// actors' (TransportAs) and the garbage collector's (gc.go). The other
// changes are a log made for an unrecorded resource (unrecorded.go) and a
// recreate fault's rewrite (recreate.go). What it changes it changes
// through the store.
type engine struct {
	store    *store
	opts     *options         // the server's options
	recorded *history.History // the history the server was made with

	// mu makes the changes of the served history one at a time: each
	// holds it from reading the history to storing the next. It guards
	// made, actors and collectedAt.
	mu sync.Mutex
	// made counts the UIDs and generated names the stored writes drew.
	made int
	// actors holds what the replay keeps of the recorded changes it
	// serves as other writers' writes (actors.go).
	actors *otherActors
	// collectedAt is where the garbage collector last found nothing to
	// collect (gc.go): nothing has happened since that could give it any.
	collectedAt gcPoint

	gc  collector // the objects the target's writes own (gc.go; its own lock)
	log writeLog  // the write requests answered (writelog.go; its own lock)
}

// newEngine returns the write path of a server made with h at start, and
// the store it changes. The store serves h. When h leaves a recorded
// client's own changes out (history.WithoutOwn), it serves the other
// actors' history. The history it serves is returned as served. The error
// says why it could not be made.
func newEngine(h *history.History, opts *options, start time.Time) (e *engine, served *history.History, err error) {
	e = &engine{opts: opts, recorded: h, actors: newOtherActors()}
	if hasOwn(h) {
		if r, rerr := withoutOwnRebased(h, e.actors, start, opts.pace.factor()); rerr != nil {
			err = fmt.Errorf("the other actors' history (history.WithoutOwn): %w", rerr)
		} else {
			e.recorded = r
		}
	}
	e.store = newStore(e.recorded, start, opts.pace, opts.compaction)
	e.store.setDiscovery(e.discoveryOf(e.recorded))
	return e, e.recorded, err
}

// targetFrom is the history.Location File of the events the target's
// writes made.
const targetFrom = history.TargetWrite

// writeAs answers req, a write of the writer from names, on the served
// history. What it stores is placed in the resource's log after what has
// happened: the newest resourceVersion any answer or the pace reached in
// any resource. It comes before what the history records after that
// (what has not happened yet), which is then served that many RVs higher.
// The target's writes (targetFrom) are logged. An actor's
// (history.ActorWrite) and the garbage collector's (gcFrom) are not. Its
// events come From that writer. body is the answer's JSON when the answer
// is the stored object (writes.Result.AnswerIsStored): its event's
// encoding. Else it is nil.
func (e *engine) writeAs(req writes.Request, from string) (res writes.Result, body []byte, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var seen writeState // the state the write saw
	if from == targetFrom {
		defer func() { e.logWrite(req, seen, res, err) }()
	}
	truth := e.store.history()
	i := truth.LogIndex(req.Kind.Resource)
	if i < 0 {
		return writes.Result{}, nil, apierrors.NewNotFound(schema.GroupResource{Group: req.Kind.Resource.Group, Resource: req.Kind.Resource.Resource}, req.Name)
	}
	l := truth.Logs[i]
	base := e.store.happenedNewest(truth)
	p := after(l, base)
	next := base
	n := e.made
	env := writes.Env{
		Now: time.Now(),
		NextRV: func() string {
			next++
			return strconv.FormatUint(next, 10)
		},
		NewUID: func() types.UID {
			n++
			return types.UID(newUID("write/"+l.Resource.ID().String(), strconv.Itoa(n)))
		},
		Suffix: func() string {
			n++
			return nameSuffix(l.Resource, n)
		},
		Revision: strconv.FormatUint(base, 10),
	}
	env.Namespace = namespaceLookup(truth, base)
	seen = writeStateOf(l, p)
	var st writes.State = seen
	if e.opts.writeReuse {
		st = rawWriteState{seen}
	}
	res, err = writes.Do(st, env, req)
	if err != nil || res.Event == writes.None {
		return res, nil, err
	}
	at := e.store.pacedNow() // on the recorded offsets' axis, where the pace serves it at once
	ev, err := eventOf(res.Event, res.Stored, at, from)
	if err != nil {
		return writes.Result{}, nil, apierrors.NewInternalError(err)
	}
	if res.AnswerIsStored {
		// the answer is the stored object: its event's encoding, as a watch
		// sends it, with its kind
		body = ev.Object.AppendWithKind(make([]byte, 0, len(ev.Object.Raw)+64), res.Stored.GetKind(), res.Stored.GetAPIVersion())
	}
	var placed []history.Event
	for _, c := range res.Before { // a pod's graceful delete with no grace left marks it first
		bev, err := eventOf(c.Event, c.Stored, at, from)
		if err != nil {
			return writes.Result{}, nil, apierrors.NewInternalError(err)
		}
		placed = append(placed, bev)
	}
	placed = append(placed, ev)
	for _, c := range res.More { // a delete of a collection stores several
		mev, err := eventOf(c.Event, c.Stored, at, from)
		if err != nil {
			return writes.Result{}, nil, apierrors.NewInternalError(err)
		}
		placed = append(placed, mev)
	}
	if acc, ok := crdAccepted(l.Resource, res, env.NextRV); ok {
		// the apiextensions controller's answer to a new or changed CRD
		cev, err := eventOf(writes.Modified, acc, at, from)
		if err != nil {
			return writes.Result{}, nil, apierrors.NewInternalError(err)
		}
		placed = append(placed, cev)
	}
	taken := next - base
	moveUp := func(rv string) string {
		if v, err := strconv.ParseUint(rv, 10, 64); err == nil && v > base {
			return strconv.FormatUint(v+taken, 10)
		}
		return rv
	}
	actors := e.actors
	pending := false // a key the write stored has recorded changes held (otherActors.pending)
	for _, ev := range placed {
		if len(actors.pending[l.Resource.ID()][ev.Object.Key()]) > 0 {
			pending = true
		}
	}
	var h *history.History
	if newestRV(truth) <= base && !pending {
		// the write at the end of its log (p == l.End()): O(log n)
		if actors.holds() { // held recorded changes are served after the write's RVs
			if actors, err = actors.moved(moveUp); err != nil {
				return writes.Result{}, nil, apierrors.NewInternalError(err)
			}
		}
		h, err = history.AppendEvents(truth, l.Resource, placed...)
	} else if h, actors, err = e.placeBefore(truth, actors, req.Kind, i, p, base, next, placed, moveUp); err != nil {
		return writes.Result{}, nil, err
	}
	if err != nil {
		return writes.Result{}, nil, apierrors.NewInternalError(err)
	}
	e.made = n + 1
	for _, ev := range placed {
		if !e.opts.noGC {
			e.gc.note(l.Resource, ev.Object.Key(), writes.Event(ev.Type), ev.Object.Raw)
		}
	}
	e.actors = actors
	var d *discovery.Doc
	if l.Resource.ID() == history.CRD.ID() && e.makesLogs() {
		d = e.discoveryOf(h) // its resource joins discovery, or leaves it (crd.go)
	}
	e.store.write(h, func(res history.Resource, pos int) int {
		if res == l.Resource.ID() && pos > p {
			return pos + len(placed)
		}
		return pos
	}, moveUp, d)
	e.store.advance(h.Logs[i], p+len(placed)) // a read after the write sees it
	return res, body, nil
}

// placeBefore places a write's events before recorded events still to
// come, which are served taken RVs higher. The events are placed at
// position p of log i of truth and take the RVs up to next. Recorded
// changes of the keys it stored that come after it, or were held, are
// served as other actors' writes onto what it left
// (otherActors.rebaseLater). The history is rebuilt, O(n). It returns the
// new served history and the otherActors that go with it; actors itself
// is left as it was.
func (e *engine) placeBefore(truth *history.History, actors *otherActors, k writes.Kind, i, p int, base, next uint64, placed []history.Event, moveUp func(string) string) (*history.History, *otherActors, error) {
	work := truth
	var err error
	if newestRV(truth) > base {
		if work, err = history.RewriteRVs(truth, moveUp); err != nil {
			return nil, nil, apierrors.NewInternalError(err)
		}
	}
	if actors, err = actors.moved(moveUp); err != nil { // a copy, moved or not
		return nil, nil, apierrors.NewInternalError(err)
	}
	wl := work.Logs[i]
	evs := make([]history.Event, 0, len(wl.Events)+len(placed))
	evs = append(append(append(evs, wl.Events[:p]...), placed...), wl.Events[p:]...)
	cur := map[string]*unstructured.Unstructured{} // what the write left of each key it stored
	for _, ev := range placed {
		cur[ev.Object.Key()] = nil
		if ev.Type != history.Deleted {
			if cur[ev.Object.Key()], err = decoded(wl.Resource, ev.Object); err != nil {
				return nil, nil, apierrors.NewInternalError(err)
			}
		}
	}
	if evs, err = actors.rebaseLater(e.store.start, e.store.pace.factor(), e.store.pacedHappened(), k, evs, p+len(placed), next, cur); err != nil {
		return nil, nil, apierrors.NewInternalError(err)
	}
	h, err := history.ReplaceEvents(work, wl.Resource, evs)
	if err != nil {
		return nil, nil, apierrors.NewInternalError(err)
	}
	return h, actors, nil
}
