// Package synth makes synthetic histories: a Builder for tests (typed objects
// added, updated and deleted with resourceVersions assigned in order) and a
// seeded generator of realistic pods and configmaps for benchmarks and
// examples. Both produce cassettes in lwreplay's format, so a synthetic
// history goes through the same loader as a recorded one.
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
	"strings"
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
	snapped   bool // Snapshot was called
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
	order      []string          // keys in first-add order
	state      map[string][]byte
	changes    []change // after the snapshot
	snapped    bool
}

// NewBuilder returns a Builder whose first resourceVersion is 1000 and whose
// events are one second apart.
func NewBuilder() *Builder {
	return &Builder{rv: 1000, step: time.Second, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

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
	if b.snapped { // first seen after Snapshot: empty until this change
		r.snapped, r.snapRV, r.snapshot = true, b.rv, map[string][]byte{}
	}
	b.resources = append(b.resources, r)
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
		r.order = append(r.order, k)
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		b.fail(fmt.Errorf("synth: %s %s: %v", r.kind, k, err))
		return
	}
	raw = stripTypeMeta(raw)
	if typ == history.Deleted {
		delete(r.state, k)
	} else {
		r.state[k] = raw
	}
	if r.snapped {
		r.changes = append(r.changes, change{typ: typ, raw: raw, rv: b.rv, at: b.now})
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
		if r.snapped {
			continue
		}
		r.snapped, r.snapRV = true, b.rv
		r.snapshot = map[string][]byte{}
		for k, v := range r.state {
			r.snapshot[k] = v
		}
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

// Cassette renders the builder's history as recorded traffic: per resource,
// one LIST (paginated as asked) at the snapshot, then one watch stream from
// there with every change and bookmarks, with timing headers.
func (b *Builder) Cassette(o CassetteOptions) (*cassette.File, error) {
	if b.err != nil {
		return nil, b.err
	}
	b.Snapshot()
	f := cassette.New()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, r := range b.resources {
		res := r.resource()
		path := res.CollectionPath("")
		listRV := strconv.FormatInt(r.snapRV, 10)
		if err := addListPages(f, res, path, listRV, r.sortedSnapshot(), o.PageSize, start); err != nil {
			return nil, err
		}
		f.Add(watchInteraction(res, path, listRV, r.changes, o.BookmarkEvery, b.rv, start))
	}
	return f, nil
}

func (r *resourceLog) sortedSnapshot() [][]byte {
	keys := make([]string, 0, len(r.snapshot))
	for k := range r.snapshot {
		keys = append(keys, k)
	}
	sortStrings(keys)
	out := make([][]byte, 0, len(keys))
	for _, k := range keys {
		out = append(out, r.snapshot[k])
	}
	return out
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

func watchInteraction(res history.Resource, path, fromRV string, changes []change, every int, lastRV int64, start time.Time) cassette.Interaction {
	var body strings.Builder
	var offs []time.Duration
	t0 := start.Add(time.Second)
	emit := func(typ history.EventType, obj []byte, at time.Time) {
		fmt.Fprintf(&body, `{"type":%q,"object":%s}`+"\n", typ, obj)
		offs = append(offs, at.Sub(t0))
	}
	withKind := func(raw []byte) []byte {
		o, _, _, err := history.ParseObject(raw)
		if err != nil {
			return raw
		}
		return o.WithKind(res.Kind, res.GroupVersion())
	}
	last := t0
	for n, c := range changes {
		emit(c.typ, withKind(c.raw), c.at)
		last = c.at
		if every > 0 && (n+1)%every == 0 {
			emit(history.Bookmark, bookmarkObject(res, strconv.FormatInt(c.rv, 10), false), c.at)
		}
	}
	emit(history.Bookmark, bookmarkObject(res, strconv.FormatInt(lastRV, 10), false), last)
	q := url.Values{"watch": {"true"}, "resourceVersion": {fromRV}, "allowWatchBookmarks": {"true"}, "timeoutSeconds": {"600"}}
	for k := range offs {
		if offs[k] < 0 {
			offs[k] = 0
		}
	}
	return cassette.Interaction{
		Method: "GET", URL: collectionURL(path, q), Code: 200, Header: jsonHeader,
		Body: []byte(body.String()), Started: t0, Duration: last.Sub(t0), FrameOffsets: offs,
	}
}

func bookmarkObject(res history.Resource, rv string, initialEnd bool) []byte {
	ann := ""
	if initialEnd {
		ann = `,"annotations":{"` + history.InitialEventsEndAnnotation + `":"true"}`
	}
	return []byte(fmt.Sprintf(`{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":%q,"creationTimestamp":null%s}}`, res.Kind, res.GroupVersion(), rv, ann))
}
