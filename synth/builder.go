// Package synth makes synthetic histories. A Builder serves tests: typed
// objects added, updated and deleted, with resourceVersions assigned in
// order. A seeded generator of realistic pods and configmaps serves
// benchmarks and examples. Both produce cassettes in lwreplay's format, so a
// synthetic history goes through the same loader as a recorded one.
// WriteCassette writes a generated cassette of any number of events straight
// to a file, holding only the objects that exist at a time.
//
// Typical use in a test:
//
//	b := synth.NewBuilder()
//	b.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
//	b.Snapshot() // the initial state ends here
//	b.Update(cm)
//	b.Delete(cm)
//	h, err := b.History()
package synth

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// Host is the server URL synthetic cassettes are recorded against.
const Host = "https://synth.lwreplay.invalid"

// Builder accumulates changes to typed objects. The zero value is not
// usable; call NewBuilder.
type Builder struct {
	rv        int64
	step      time.Duration
	now       time.Time
	resources []*resourceLog
	snapped   bool   // Snapshot was called
	spill     *spill // where a streaming builder's changes go; nil: memory
	err       error
}

type change struct {
	typ history.EventType
	raw []byte
	rv  int64
	at  time.Time
}

type resourceLog struct {
	gvr        schema.GroupVersionResource
	kind       string
	namespaced bool
	snapRV     int64
	snapshot   map[string][]byte // key -> list item JSON, at snapRV
	state      map[string][]byte
	changes    []change // after the snapshot, when not spilled
	spilled    *resourceSpill
	snapped    bool
}

// trafficStart is when a builder's history begins, and its initial LISTs
// are sent.
var trafficStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// NewBuilder returns a Builder whose first resourceVersion is 1000 and whose
// events are one second apart.
func NewBuilder() *Builder {
	return &Builder{rv: 1000, step: time.Second, now: trafficStart}
}

// Wait lets d pass before the next change: under replayer.PaceRecorded
// a controller then has d, in virtual time, to act on the one before.
func (b *Builder) Wait(d time.Duration) { b.now = b.now.Add(d) }

// Err returns the first error met (an object of an unknown type, say).
func (b *Builder) Err() error { return b.err }

func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

func (b *Builder) logFor(obj runtime.Object) (*resourceLog, metav1.Object, bool) {
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		b.fail(fmt.Errorf("synth: %T: %v", obj, err))
		return nil, nil, false
	}
	gvk := gvks[0]
	m, err := meta.Accessor(obj)
	if err != nil {
		b.fail(fmt.Errorf("synth: %T: %v", obj, err))
		return nil, nil, false
	}
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	for _, r := range b.resources {
		if r.gvr == gvr {
			return r, m, true
		}
	}
	r := &resourceLog{gvr: gvr, kind: gvk.Kind, namespaced: m.GetNamespace() != "", state: map[string][]byte{}}
	b.resources = append(b.resources, r)
	if b.snapped { // first seen after Snapshot: empty until this change
		b.snap(r)
	}
	return r, m, true
}

func key(m metav1.Object) string {
	if m.GetNamespace() == "" {
		return m.GetName()
	}
	return m.GetNamespace() + "/" + m.GetName()
}

// record assigns the next RV to obj and records a change of type typ.
func (b *Builder) record(typ history.EventType, obj runtime.Object) {
	r, m, ok := b.logFor(obj)
	if !ok {
		return
	}
	k := key(m)
	_, exists := r.state[k]
	switch {
	case typ == history.Added && exists:
		b.fail(fmt.Errorf("synth: add of existing %s %s", r.kind, k))
		return
	case typ != history.Added && !exists:
		b.fail(fmt.Errorf("synth: %s of unknown %s %s", typ, r.kind, k))
		return
	}
	b.rv++
	b.now = b.now.Add(b.step)
	m.SetResourceVersion(strconv.FormatInt(b.rv, 10))
	if typ == history.Added {
		if m.GetUID() == "" {
			m.SetUID(types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", b.rv)))
		}
		if m.GetCreationTimestamp().Time.IsZero() {
			m.SetCreationTimestamp(metav1.NewTime(b.now))
		}
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		b.fail(fmt.Errorf("synth: %s %s: %v", r.kind, k, err))
		return
	}
	raw = stripTypeMeta(raw)
	switch {
	case typ == history.Deleted:
		delete(r.state, k)
	case r.spilled != nil:
		r.state[k] = nil // listed already: only the key matters now
	default:
		r.state[k] = raw
	}
	if !r.snapped {
		return
	}
	c := change{typ: typ, raw: raw, rv: b.rv, at: b.now}
	if r.spilled == nil {
		r.changes = append(r.changes, c)
		return
	}
	if err := r.spilled.add(c); err != nil {
		b.fail(fmt.Errorf("synth: %s: %w", r.kind, err))
	}
}

func stripTypeMeta(raw []byte) []byte {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return raw
	}
	delete(fields, "kind")
	delete(fields, "apiVersion")
	out, err := json.Marshal(fields)
	if err != nil {
		return raw
	}
	return out
}

// Add records the creation of obj, setting its resourceVersion, and a UID
// and creationTimestamp when it has none.
func (b *Builder) Add(obj runtime.Object) { b.record(history.Added, obj) }

// Update records a change of obj, setting its resourceVersion.
func (b *Builder) Update(obj runtime.Object) { b.record(history.Modified, obj) }

// Delete records the deletion of obj; the DELETED event carries a new
// resourceVersion, as kube-apiserver's do.
func (b *Builder) Delete(obj runtime.Object) { b.record(history.Deleted, obj) }

// Snapshot ends the initial state: every resource known so far is listed at
// the current resourceVersion, and later changes become watch events. A
// resource first seen after Snapshot starts empty at the RV before its
// first change.
func (b *Builder) Snapshot() {
	b.snapped = true
	for _, r := range b.resources {
		if !r.snapped {
			b.snap(r)
		}
	}
}

// snap lists r at the current resourceVersion: in memory, or, for a
// streaming builder, in a spill file.
func (b *Builder) snap(r *resourceLog) {
	r.snapped, r.snapRV = true, b.rv
	if b.spill != nil {
		sp, err := b.spill.open(r)
		if err != nil {
			b.fail(fmt.Errorf("synth: %s: %w", r.kind, err))
			return
		}
		r.spilled = sp
		return
	}
	r.snapshot = map[string][]byte{}
	for k, v := range r.state {
		r.snapshot[k] = v
	}
}

// RV returns the last resourceVersion assigned.
func (b *Builder) RV() string { return strconv.FormatInt(b.rv, 10) }

func (r *resourceLog) resource() history.Resource {
	return history.Resource{Group: r.gvr.Group, Version: r.gvr.Version, Resource: r.gvr.Resource, Kind: r.kind, Namespaced: r.namespaced}
}

// CassetteOptions shape the traffic a Builder's cassette records.
type CassetteOptions struct {
	// PageSize splits each initial LIST into pages of this many items
	// (0: one page).
	PageSize int
	// BookmarkEvery puts a BOOKMARK after every n events (0: none but the
	// last, which carries the final resourceVersion).
	BookmarkEvery int
}

// Cassette renders the builder's history as recorded traffic, with timing
// headers. Per resource, it makes one LIST (paginated as asked) at the
// snapshot. Then it makes one watch stream from there, with every change
// and bookmarks.
func (b *Builder) Cassette(o CassetteOptions) (*cassette.File, error) {
	if b.err != nil {
		return nil, b.err
	}
	b.Snapshot()
	f := cassette.New()
	start := trafficStart
	for _, r := range b.resources {
		res := r.resource()
		path := res.CollectionPath("")
		listRV := strconv.FormatInt(r.snapRV, 10)
		items := r.sortedSnapshot()
		next := func() ([]byte, error) {
			it := items[0]
			items = items[1:]
			return it, nil
		}
		if err := addListPages(addTo(f), res, path, listRV, len(items), next, o.PageSize, start); err != nil {
			return nil, err
		}
		f.Add(watchInteraction(res, path, listRV, r.changes, o.BookmarkEvery, b.rv, start, b.now))
	}
	return f, nil
}

func (r *resourceLog) sortedSnapshot() [][]byte {
	out := make([][]byte, 0, len(r.snapshot))
	for _, k := range sortedKeys(r.snapshot) {
		out = append(out, r.snapshot[k])
	}
	return out
}

// addTo returns a function adding interactions to f.
func addTo(f *cassette.File) func(cassette.Interaction) error {
	return func(i cassette.Interaction) error {
		f.Add(i)
		return nil
	}
}

// History builds the history the builder's cassette records.
func (b *Builder) History() (*history.History, error) {
	f, err := b.Cassette(CassetteOptions{})
	if err != nil {
		return nil, err
	}
	f.Path = "synth.yaml"
	return history.Build(f)
}

func collectionURL(path string, q url.Values) string {
	u := Host + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

var jsonHeader = map[string][]string{"Content-Type": {"application/json"}}
