package history

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
)

// Build reconstructs the history recorded in cassette files, taken in the
// order given as one recording. Errors name the file, interaction and event.
//
// Per resource, the first list (or WatchList initial events) gives the
// initial state, and watch events after it are applied in order; streams
// that overlap (a re-watch, a relist) are merged, repeats skipped. A relist
// that lands past the known state (after a 410, say) adds the difference as
// inferred events. Only traffic with the selectors and namespace of the
// resource's first request counts; requests with others are left out.
func Build(files ...*cassette.File) (*History, error) {
	h := &History{Discovery: map[string][]byte{}}
	var start, end time.Time
	for _, f := range files {
		h.Files = append(h.Files, f.Path)
		for _, i := range f.Interactions {
			if i.Started.IsZero() {
				continue
			}
			if start.IsZero() || i.Started.Before(start) {
				start = i.Started
			}
			if e := i.Started.Add(i.Duration); e.After(end) {
				end = e
			}
		}
	}
	if !start.IsZero() {
		h.Span = end.Sub(start)
	}
	var recs []*record
	var appearance []string
	for _, f := range files {
		for n, i := range f.Interactions {
			r, err := parseInteraction(Location{File: f.Path, Interaction: n, Event: -1}, i, start)
			if err != nil {
				return nil, err
			}
			recs = append(recs, r)
			for _, o := range r.items {
				appearance = append(appearance, o.ResourceVersion)
			}
			if r.listRV != "" {
				appearance = append(appearance, r.listRV)
			}
			for _, fr := range r.frames {
				if fr.rv != "" {
					appearance = append(appearance, fr.rv)
				}
			}
		}
	}
	h.order = newOrder(appearance)
	builders := map[Resource]*logBuilder{}
	for _, r := range recs {
		switch r.kind {
		case recDiscovery:
			h.Discovery[r.path] = r.body
			continue
		case recError:
			if r.req.Resource.Resource == "" {
				h.Errors = append(h.Errors, *r.err)
				continue
			}
		case recOther:
			continue
		}
		id := r.req.Resource.ID()
		b := builders[id]
		if b == nil {
			b = &logBuilder{log: &Log{Resource: id, order: h.order}, view: r.view, cur: map[string]*Object{}, chains: map[string]*chain{}}
			builders[id] = b
			h.Logs = append(h.Logs, b.log)
		}
		if err := b.add(r); err != nil {
			return nil, err
		}
	}
	for _, l := range h.Logs {
		if !builders[l.Resource.ID()].started {
			return nil, fmt.Errorf("%w: %s: no complete list or watch was recorded", ErrContradiction, l.Resource)
		}
		h.applyDiscovery(l)
		l.finish()
	}
	return h, nil
}

type chain struct {
	rv    string
	items []*Object
	at    time.Duration
}

type logBuilder struct {
	log     *Log
	view    string
	started bool
	cur     map[string]*Object
	curRV   string
	chains  map[string]*chain // by the continue token that extends them
}

func (b *logBuilder) learn(r *record, objs ...*Object) {
	if b.log.Resource.Kind == "" && r.kindName != "" {
		b.log.Resource.Kind = r.kindName
	}
	if r.req.Namespace != "" {
		b.log.Resource.Namespaced = true
	}
	for _, o := range objs {
		if o != nil && o.Namespace != "" {
			b.log.Resource.Namespaced = true
		}
	}
}

func (b *logBuilder) add(r *record) error {
	if r.kind == recError {
		b.log.Errors = append(b.log.Errors, *r.err)
		if r.req.Continue != "" {
			delete(b.chains, r.req.Continue)
		}
		return nil
	}
	if r.view != b.view {
		return nil
	}
	if r.kind == recList {
		b.log.Lists++
		b.learn(r, r.items...)
		return b.addPage(r)
	}
	b.log.Watches++
	return b.addWatch(r)
}

func (b *logBuilder) addPage(r *record) error {
	c := &chain{rv: r.listRV, at: r.started}
	if r.req.Continue != "" {
		prev, ok := b.chains[r.req.Continue]
		if !ok {
			return fmt.Errorf("%w: %s: continue token %.40q was not minted by an earlier page", ErrContradiction, r.loc, r.req.Continue)
		}
		delete(b.chains, r.req.Continue)
		if prev.rv != r.listRV {
			return fmt.Errorf("%w: %s: page resourceVersion %s differs from the chain's %s", ErrContradiction, r.loc, r.listRV, prev.rv)
		}
		c = prev
	}
	c.items = append(c.items, r.items...)
	if r.next != "" {
		b.chains[r.next] = c
		return nil
	}
	return b.snapshot(c.rv, c.items, c.at, r.loc)
}

// snapshot merges a complete list at rv into the log.
func (b *logBuilder) snapshot(rv string, items []*Object, at time.Duration, loc Location) error {
	l := b.log
	if !b.started {
		b.started = true
		l.StartRV, b.curRV = rv, rv
		l.Initial = append([]*Object(nil), items...)
		sort.Slice(l.Initial, func(i, j int) bool { return l.Initial[i].Key() < l.Initial[j].Key() })
		for _, o := range l.Initial {
			b.cur[o.Key()] = o
		}
		l.Marks = append(l.Marks, Mark{RV: rv, At: at, From: loc})
		return nil
	}
	l.Marks = append(l.Marks, Mark{RV: rv, At: at, From: loc})
	if !l.order.Less(b.curRV, rv) {
		return nil // an older or equal view of what is known
	}
	// The list is past what the watches showed: infer the missing changes.
	seen := map[string]bool{}
	var inferred []Event
	for _, o := range items {
		seen[o.Key()] = true
		old, ok := b.cur[o.Key()]
		switch {
		case !ok:
			inferred = append(inferred, Event{Type: Added, Object: o, At: at})
		case old.ResourceVersion != o.ResourceVersion && l.order.Less(b.curRV, o.ResourceVersion):
			inferred = append(inferred, Event{Type: Modified, Object: o, At: at})
		}
	}
	sort.SliceStable(inferred, func(i, j int) bool { return l.order.Less(inferred[i].RV(), inferred[j].RV()) })
	var gone []string
	for k := range b.cur {
		if !seen[k] {
			gone = append(gone, k)
		}
	}
	sort.Strings(gone)
	for _, k := range gone {
		d, err := WithResourceVersion(b.cur[k], rv)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrContradiction, loc, err)
		}
		inferred = append(inferred, Event{Type: Deleted, Object: d, At: at})
	}
	for _, e := range inferred {
		b.apply(e)
	}
	b.curRV = rv
	return nil
}

func (b *logBuilder) apply(e Event) {
	if e.Type == Deleted {
		delete(b.cur, e.Object.Key())
	} else {
		b.cur[e.Object.Key()] = e.Object
	}
	b.log.Events = append(b.log.Events, e)
}

func (b *logBuilder) addWatch(r *record) error {
	l := b.log
	var initial []*Object
	inInitial := r.req.IsWatchList()
	last := ""
	for _, f := range r.frames {
		b.learn(r, f.obj)
		if f.typ == Error {
			l.Errors = append(l.Errors, *f.err)
			return nil
		}
		if inInitial {
			switch {
			case f.typ == Added:
				initial = append(initial, f.obj)
				continue
			case f.typ == Bookmark && f.initialEnd:
				inInitial = false
				last = f.rv
				if err := b.snapshot(f.rv, initial, f.at, f.loc); err != nil {
					return err
				}
				continue
			case f.typ == Bookmark:
				continue
			}
			return fmt.Errorf("%w: %s: %s before the initial-events-end bookmark", ErrContradiction, f.loc, f.typ)
		}
		if last != "" {
			c, ok := l.order.Compare(f.rv, last)
			if !ok || c < 0 || (c == 0 && f.typ != Bookmark) {
				return fmt.Errorf("%w: %s: resourceVersion %s after %s", ErrContradiction, f.loc, f.rv, last)
			}
		}
		last = f.rv
		if f.typ == Bookmark {
			l.Marks = append(l.Marks, Mark{RV: f.rv, Type: Bookmark, At: f.at, From: f.loc})
			continue
		}
		if !b.started {
			if err := b.startEmpty(r, f); err != nil {
				return err
			}
		}
		if !l.order.Less(b.curRV, f.rv) {
			continue // already known from an earlier stream or list
		}
		_, exists := b.cur[f.obj.Key()]
		switch {
		case f.typ == Added && exists:
			return fmt.Errorf("%w: %s: ADDED of existing key %s", ErrContradiction, f.loc, f.obj.Key())
		case f.typ != Added && !exists:
			return fmt.Errorf("%w: %s: %s of unknown key %s", ErrContradiction, f.loc, f.typ, f.obj.Key())
		}
		b.apply(Event{Type: f.typ, Object: f.obj, At: f.at, From: f.loc})
		b.curRV = f.rv
	}
	return nil
}

// startEmpty starts a log whose first traffic is a watch: the initial state
// is empty, at the watch's resourceVersion.
func (b *logBuilder) startEmpty(r *record, f frame) error {
	rv := r.req.ResourceVersion
	if rv == "" || rv == "0" {
		if !b.log.order.Numeric() {
			return fmt.Errorf("%w: %s: watch from resourceVersion %q before any list: the initial state is unknown", ErrContradiction, f.loc, rv)
		}
		rv = "0"
	}
	b.started = true
	b.log.StartRV, b.curRV = rv, rv
	b.log.Marks = append(b.log.Marks, Mark{RV: rv, At: r.started, From: r.loc})
	return nil
}

type apiResourceList struct {
	Resources []struct {
		Name       string `json:"name"`
		Kind       string `json:"kind"`
		Namespaced bool   `json:"namespaced"`
	} `json:"resources"`
}

// applyDiscovery takes Kind and scope from a recorded discovery answer.
func (h *History) applyDiscovery(l *Log) {
	var rl apiResourceList
	if json.Unmarshal(h.Discovery[l.Resource.Prefix()], &rl) != nil {
		return
	}
	for _, r := range rl.Resources {
		if r.Name == l.Resource.Resource {
			l.Resource.Kind, l.Resource.Namespaced = r.Kind, r.Namespaced
		}
	}
}
