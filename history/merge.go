package history

import (
	"fmt"
	"sort"
	"time"
)

// chain is a LIST page chain being read: its RV, items so far and start.
type chain struct {
	rv    string
	items []*Object
	at    time.Duration
}

// logBuilder merges one resource's recorded lists and watch streams into
// its log, in recorded order (see Build).
type logBuilder struct {
	log     *Log
	view    string // namespace and selectors of the first list or watch
	viewSet bool
	first   Location // the resource's first request
	started bool
	cur     map[string]*Object
	curRV   string
	chains  map[string]*chain // by the continue token that extends them
}

func (b *logBuilder) learn(r *record, objs ...*Object) {
	// a kind of another group version is a conversion's (a metadata-only
	// PartialObjectMetadata, a Table), not the resource's
	if b.log.Resource.Kind == "" && r.kindName != "" && (r.apiVersion == "" || r.apiVersion == b.log.Resource.GroupVersion()) {
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
	if !b.viewSet {
		b.view, b.viewSet = r.view, true
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
	return b.snapshot(c.rv, c.items, c.at, r.loc, "")
}

// snapshot merges a complete list at rv into the log.
// typ is Bookmark when rv is an initial-events-end bookmark's.
func (b *logBuilder) snapshot(rv string, items []*Object, at time.Duration, loc Location, typ EventType) error {
	l := b.log
	mark := Mark{RV: rv, Type: typ, At: at, From: loc}
	keys := make(map[string]bool, len(items))
	for _, o := range items {
		if l.order.Less(rv, o.ResourceVersion) {
			return fmt.Errorf("%w: %s: %s has resourceVersion %s, newer than the list's %s", ErrContradiction, loc, o.Key(), o.ResourceVersion, rv)
		}
		if keys[o.Key()] {
			return fmt.Errorf("%w: %s: %s listed twice", ErrContradiction, loc, o.Key())
		}
		keys[o.Key()] = true
	}
	if !b.started {
		b.started = true
		l.StartRV, b.curRV = rv, rv
		l.Initial = append([]*Object(nil), items...)
		sort.Slice(l.Initial, func(i, j int) bool { return l.Initial[i].Key() < l.Initial[j].Key() })
		for _, o := range l.Initial {
			b.cur[o.Key()] = o
		}
		l.Marks = append(l.Marks, mark)
		return nil
	}
	l.Marks = append(l.Marks, mark)
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
		case old.ResourceVersion == o.ResourceVersion || !l.order.Less(b.curRV, o.ResourceVersion):
		case old.UID != o.UID:
			// Deleted and created again during the gap: the deletion's
			// RV is unknown, so it shares the new object's.
			d, err := WithResourceVersion(old, o.ResourceVersion)
			if err != nil {
				return fmt.Errorf("%w: %s: %v", ErrContradiction, loc, err)
			}
			inferred = append(inferred, Event{Type: Deleted, Object: d, At: at}, Event{Type: Added, Object: o, At: at})
		default:
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
	last, fromReq := "", false
	frames := r.frames
	switch rv := r.req.ResourceVersion; {
	case inInitial:
	case rv == "" || rv == "0":
		var err error
		if frames, last, err = b.addSynthetic(r); err != nil {
			return err
		}
	default:
		last, fromReq = rv, true
	}
	for _, f := range frames {
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
				if err := b.snapshot(f.rv, initial, f.at, r.where(f), Bookmark); err != nil {
					return err
				}
				continue
			case f.typ == Bookmark:
				continue
			}
			return fmt.Errorf("%w: %s: %s before the initial-events-end bookmark", ErrContradiction, r.where(f), f.typ)
		}
		if last != "" {
			c, ok := l.order.Compare(f.rv, last)
			switch {
			case (!ok || c < 0 || (c == 0 && f.typ != Bookmark)) && fromReq:
				return fmt.Errorf("%w: %s: resourceVersion %s is not after the watch's resourceVersion %s", ErrContradiction, r.where(f), f.rv, last)
			case !ok || c < 0 || (c == 0 && f.typ != Bookmark):
				return fmt.Errorf("%w: %s: resourceVersion %s after %s", ErrContradiction, r.where(f), f.rv, last)
			}
		}
		last, fromReq = f.rv, false
		if f.typ == Bookmark {
			l.Marks = append(l.Marks, Mark{RV: f.rv, Type: Bookmark, At: f.at, From: r.where(f)})
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
			return fmt.Errorf("%w: %s: ADDED of existing key %s", ErrContradiction, r.where(f), f.obj.Key())
		case f.typ != Added && !exists:
			return fmt.Errorf("%w: %s: %s of unknown key %s", ErrContradiction, r.where(f), f.typ, f.obj.Key())
		}
		b.apply(Event{Type: f.typ, Object: f.obj, At: f.at, From: r.where(f)})
		b.curRV = f.rv
	}
	return nil
}

// addSynthetic handles the start of a watch from resourceVersion "" or "0"
// (not a WatchList). kube-apiserver first sends the current state as ADDED
// events, in key order rather than resourceVersion order. Then it sends
// live events. The leading run of ADDED events is taken as a list at its
// newest resourceVersion. That holds when the log has not started, or when
// a later frame shows the run was complete. It returns the frames left to
// apply and the resourceVersion they must follow ("" when nothing was
// taken).
func (b *logBuilder) addSynthetic(r *record) (rest []frame, last string, err error) {
	n := 0
	for n < len(r.frames) && r.frames[n].typ == Added {
		n++
	}
	if n == 0 {
		return r.frames, "", nil
	}
	complete := n < len(r.frames) && r.frames[n].typ != Error
	if b.started && !complete {
		return r.frames[n:], "", nil // perhaps cut short: not a whole state
	}
	items := make([]*Object, 0, n)
	keys := make(map[string]bool, n)
	for _, f := range r.frames[:n] {
		b.learn(r, f.obj)
		if keys[f.obj.Key()] {
			return nil, "", fmt.Errorf("%w: %s: ADDED of existing key %s", ErrContradiction, r.where(f), f.obj.Key())
		}
		keys[f.obj.Key()] = true
		items = append(items, f.obj)
		if last == "" || b.log.order.Less(last, f.rv) {
			last = f.rv
		}
	}
	end := r.frames[n-1]
	return r.frames[n:], last, b.snapshot(last, items, end.at, r.where(end), "")
}

// startEmpty starts a log whose first traffic is a watch: the initial state
// is empty, at the watch's resourceVersion.
func (b *logBuilder) startEmpty(r *record, f frame) error {
	rv := r.req.ResourceVersion
	if rv == "" || rv == "0" {
		if !b.log.order.Numeric() {
			return fmt.Errorf("%w: %s: watch from resourceVersion %q before any list: the initial state is unknown", ErrContradiction, r.where(f), rv)
		}
		rv = "0"
	}
	b.started = true
	b.log.StartRV, b.curRV = rv, rv
	b.log.Marks = append(b.log.Marks, Mark{RV: rv, At: r.started, From: r.loc})
	return nil
}
