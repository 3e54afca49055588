package replayer

import (
	"bytes"
	"maps"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/writes"
)

// The garbage collector. The garbage collector of kube-controller-manager
// deletes an object once every owner its metadata.ownerReferences name is
// gone, with background propagation
// (pkg/controller/garbagecollector/garbagecollector.go, attemptToDeleteItem:
// "if all owners are absent, delete the dependent"). An owner is gone when
// no object of its UID exists; a name taken again by an object of
// another UID is gone too.
//
// A recording holds what the recorded cluster's collector did to the
// recorded objects. The objects the target's writes own are the replay's
// to collect. Such is a child the target created whose parent the
// recording, a fault (recreate) or the target itself deletes. The replay
// collects it, as the other actor no recording could hold. It does so
// once the owners' deletion has happened: an event an answer reached, or
// the pace made current. An owner the history never held (a kind it did
// not record) counts as alive: the replay cannot tell. Foreground
// deletion (an owner kept until its dependents are gone) is not modelled.
//
// The collector's deletes are no writes of the target's. The write log
// does not hold them, no write point numbers them, and their events come
// From gcFrom. The objects the actors' writes own (TransportAs) are
// collected alike, unless WithoutGC turns the model off. A run whose
// actors include kube-controller-manager's garbage collector leaves it
// the collecting.

// Collected returns how many of the target's objects the replay's
// garbage collector has deleted so far. A controller's cache may still
// hold an owner the collector saw gone. Then it makes the child again
// each time the collector deletes it, as against a real cluster. Its
// requests answer another actor's changes (fuzz/harness's request bound
// allows for them).
func (s *Server) Collected() int { return s.eng.gc.count() }

// gcFrom is the history.Location File of the events of the replay's
// garbage collector.
const gcFrom = "garbage-collector"

// gcUserAgent is the User-Agent kube-controller-manager's garbage
// collector sends.
const gcUserAgent = "kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/garbage-collector"

// collector holds the objects the target's writes stored with
// ownerReferences, by resource and key: the only ones the replay
// collects.
type collector struct {
	mu        sync.Mutex // guards every field
	owned     map[history.Resource]map[string]bool
	changes   uint64 // how many times owned changed
	collected int    // the objects deleted (Server.Collected)
	// snapshot is a copy of owned as it was at snapshotAt changes, which
	// watched hands out: it is never changed once made.
	snapshot   map[history.Resource]map[string]bool
	snapshotAt uint64
}

// gcPoint is a point of what has happened, as the garbage collector sees
// it: the served history, the positions the pace has reached in its logs,
// and the collector's changes of what it watches.
type gcPoint struct {
	h       *history.History
	avail   []int
	changes uint64
}

// same reports whether p and q are one point.
func (p gcPoint) same(q gcPoint) bool {
	return p.h == q.h && p.changes == q.changes && slices.Equal(p.avail, q.avail)
}

// count returns how many objects the collector deleted.
func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.collected
}

// deleted notes that the collector deleted an object.
func (c *collector) deleted() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.collected++
}

// note records what a stored write of the target's left of key in res.
// An object carrying ownerReferences is the collector's to watch. One
// deleted or without owners no longer is.
func (c *collector) note(res history.Resource, key string, ev writes.Event, raw []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	has := ev != writes.Deleted && bytes.Contains(raw, []byte(`"ownerReferences"`))
	if has {
		if c.owned == nil {
			c.owned = map[history.Resource]map[string]bool{}
		}
		if c.owned[res] == nil {
			c.owned[res] = map[string]bool{}
		}
		if !c.owned[res][key] {
			c.owned[res][key] = true
			c.changes++
		}
		return
	}
	if c.owned[res][key] {
		delete(c.owned[res], key)
		c.changes++
	}
}

// changesSoFar returns how many times the watched keys changed so far.
func (c *collector) changesSoFar() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changes
}

// watched returns the watched keys of every resource (nil when there
// are none). The maps are a snapshot, shared until the keys next change:
// the caller must not change them.
func (c *collector) watched() map[history.Resource]map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snapshotAt == c.changes { // none is made before the first change: none is watched
		return c.snapshot
	}
	var out map[history.Resource]map[string]bool
	for res, keys := range c.owned {
		if len(keys) == 0 {
			continue
		}
		if out == nil {
			out = map[history.Resource]map[string]bool{}
		}
		out[res] = maps.Clone(keys)
	}
	c.snapshot, c.snapshotAt = out, c.changes
	return out
}

// collectGarbage deletes, as the cluster's garbage collector does, every
// watched object whose owners are all gone from what has happened. It
// goes on until none is left: a collected owner's dependents next. It
// takes the engine's lock itself: the caller holds none.
func (e *engine) collectGarbage() {
	if e.opts.noGC {
		return
	}
	for range maxCollectRounds {
		reqs := e.garbage()
		if len(reqs) == 0 {
			return
		}
		for _, req := range reqs {
			// a dependent gone or changed since is the collector's 404 or 409: it looks again
			if res, _, err := e.writeAs(req, gcFrom); err == nil && res.Event == writes.Deleted {
				e.gc.deleted()
			}
		}
	}
}

// maxCollectRounds bounds collectGarbage's rounds: an owner chain is
// collected a link a round.
const maxCollectRounds = 8

// garbage returns the deletes of the watched objects whose every owner is
// gone from what has happened, in resource and key order.
func (e *engine) garbage() []writes.Request {
	changes := e.gc.changesSoFar() // read first: a change after it makes the next look scan again
	e.mu.Lock()
	defer e.mu.Unlock()
	truth := e.store.history()
	at := gcPoint{h: truth, avail: make([]int, len(truth.Logs)), changes: changes}
	for i, l := range truth.Logs {
		at.avail[i] = e.store.available(l)
	}
	if at.same(e.collectedAt) {
		return nil // nothing has happened since it last found nothing
	}
	watched := e.gc.watched()
	if len(watched) == 0 {
		e.collectedAt = at
		return nil
	}
	// The watched objects of the state that name owners, and those
	// owners' UIDs: only theirs are looked up in what has happened.
	type candidate struct {
		log    int
		obj    *history.Object
		owners []string
	}
	var cands []candidate
	owners := map[string]bool{}
	avail := at.avail
	states := make([][]*history.Object, len(truth.Logs))
	for i, l := range truth.Logs {
		states[i] = l.StateAt(avail[i])
		want := watched[l.Resource]
		if len(want) == 0 {
			continue
		}
		for _, o := range states[i] {
			if !want[o.Key()] {
				continue
			}
			// one being deleted is left to its final deletion
			// (garbagecollector.go attemptToDeleteItem: isBeingDeleted)
			if own := o.Owners(); len(own) > 0 && !bytes.Contains(o.Raw, []byte(`"deletionTimestamp"`)) {
				cands = append(cands, candidate{log: i, obj: o, owners: own})
				for _, uid := range own {
					owners[uid] = true
				}
			}
		}
	}
	// An owner the state holds is alive: a candidate with one is kept
	// without looking through what has happened.
	live := map[string]bool{}
	for i := range truth.Logs {
		for _, o := range states[i] {
			if owners[o.UID] {
				live[o.UID] = true
			}
		}
	}
	cands = slices.DeleteFunc(cands, func(c candidate) bool {
		return slices.ContainsFunc(c.owners, func(uid string) bool { return live[uid] })
	})
	if len(cands) == 0 {
		e.collectedAt = at
		return nil
	}
	seen := map[string]bool{}
	for i, l := range truth.Logs {
		for _, o := range l.Initial {
			if owners[o.UID] {
				seen[o.UID] = true
			}
		}
		for _, e := range l.Events[:avail[i]] {
			if owners[e.Object.UID] {
				seen[e.Object.UID] = true
			}
		}
	}
	var out []writes.Request
	for _, c := range cands {
		o := c.obj
		if !ownersGone(c.owners, seen, live) {
			continue
		}
		uid := types.UID(o.UID)
		bg := metav1.DeletePropagationBackground
		k := kindOf(truth.Logs[c.log].Resource)
		k.Graceful = e.opts.graceful && writes.GracefulKind(k) // a pod's delete is graceful, as any client's
		out = append(out, writes.Request{Verb: writes.Delete, Kind: k, Namespace: o.Namespace, Name: o.Name,
			UserAgent: gcUserAgent, Delete: metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &bg}})
	}
	if len(out) == 0 {
		e.collectedAt = at
	}
	return out
}

// ownersGone reports whether owners (an object's owner UIDs) is not
// empty and every one of them is gone: its UID was held (seen) and is no
// longer (live).
func ownersGone(owners []string, seen, live map[string]bool) bool {
	for _, uid := range owners {
		if !seen[uid] || live[uid] {
			return false
		}
	}
	return len(owners) > 0
}
