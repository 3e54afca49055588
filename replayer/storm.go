package replayer

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/storm"
)

// Default thresholds of storm detection (see WithStormDetection). A storm
// is more than DefaultStormLimit requests for one resource within
// DefaultStormWindow, none of which gained the client anything. They are
// internal/storm's; the fuzz oracle's no-request-storm counts with them
// too. Its doc says why these numbers.
const (
	DefaultStormWindow = storm.Window
	DefaultStormLimit  = storm.Limit
)

// StormReport describes a request storm: a client asking again and again
// for one resource and gaining nothing. The Reflector of client-go does
// so when it restarts a WatchList stream cut before its initial-events-end
// bookmark, at once, with no backoff (kubernetes/kubernetes#140890).
type StormReport struct {
	// Resource is the resource asked for.
	Resource history.Resource
	// Episode numbers the server's storms in the order they began, from 1.
	Episode int
	// Start is when the first request of the storm ended; Last when the
	// latest did.
	Start, Last time.Time
	// Requests counts the storm's requests so far: the more than Limit
	// within Window that revealed it, and every one after.
	Requests int
	// WatchLists, Lists and Watches count them by kind: WATCH requests
	// asking for initial events (sendInitialEvents=true, or defaulted to
	// it), LIST requests (a chain of pages counting once), other WATCH
	// requests.
	WatchLists, Lists, Watches int
	// EndedBeforeInitialEventsEnd counts the WatchList requests that
	// ended before their initial-events-end bookmark was sent.
	EndedBeforeInitialEventsEnd int
	// Window and Limit are the thresholds the storm passed.
	Window time.Duration
	Limit  int
	// Ongoing says no progress and no quiet window has ended the storm
	// yet.
	Ongoing bool
}

// Span returns the time from the storm's first request to its latest.
func (r StormReport) Span() time.Duration { return r.Last.Sub(r.Start) }

// String tells the storm in one line: "1,200 WatchList requests for
// configmaps in 2s, each ending before initial-events-end; no progress".
func (r StormReport) String() string {
	var b strings.Builder
	b.WriteString(thousands(r.Requests))
	switch {
	case r.WatchLists == r.Requests:
		b.WriteString(" WatchList")
	case r.Lists == r.Requests:
		b.WriteString(" LIST")
	case r.Watches == r.Requests:
		b.WriteString(" WATCH")
	}
	b.WriteString(" requests for " + r.Resource.Name())
	if span := r.Span(); span > 0 {
		b.WriteString(" in " + span.Round(time.Millisecond).String())
	} else {
		b.WriteString(" at once")
	}
	if r.WatchLists != r.Requests && r.Lists != r.Requests && r.Watches != r.Requests {
		var kinds []string
		for _, k := range []struct {
			n    int
			name string
		}{{r.WatchLists, "WatchList"}, {r.Lists, "LIST"}, {r.Watches, "WATCH"}} {
			if k.n > 0 {
				kinds = append(kinds, thousands(k.n)+" "+k.name)
			}
		}
		b.WriteString(" (" + strings.Join(kinds, ", ") + ")")
	}
	switch e := r.EndedBeforeInitialEventsEnd; {
	case e > 0 && e == r.Requests:
		b.WriteString(", each ending before initial-events-end")
	case e > 0:
		b.WriteString(", " + thousands(e) + " WatchList ending before initial-events-end")
	}
	b.WriteString("; no progress")
	return b.String()
}

// thousands renders n with a comma every three digits: "1,200".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// requestKind is what a request asks for, as a storm counts it.
type requestKind uint8

const (
	kindList requestKind = iota
	kindWatch
	kindWatchList
)

// stormNote is one request's account, taken when it ends.
type stormNote struct {
	at   time.Time
	kind requestKind
	// continued says a LIST page carried a continue token: it goes on
	// with a LIST already counted.
	continued bool
	// early says a WatchList ended before its initial-events-end bookmark.
	early bool
	// live says a watch sent an event after its initial state: its
	// client reached a newer resourceVersion.
	live bool
	// head is the server's head for the resource when the request ended;
	// listed says a complete listing of it has been served.
	head   int
	listed bool
}

// stormDetector counts, per resource, the requests that gained nothing
// since the resource last made progress. A request counts when it ends.
// It finds storms among them with a storm.Counter each. It is safe for
// concurrent use.
type stormDetector struct {
	window time.Duration
	limit  int

	mu       sync.Mutex                       // guards states and episodes
	states   map[history.Resource]*stormState // by Resource.ID
	episodes int
}

// stormState is one resource's account.
type stormState struct {
	head   int  // the newest head seen
	listed bool // a complete listing was seen
	count  *storm.Counter[stormNote]
	// ep is the current storm, nil if none; stormAt is when a request last
	// found the storm going on.
	ep      *StormReport
	stormAt time.Time
	latest  *StormReport // the last storm, current or over
}

func newStormDetector(window time.Duration, limit int) *stormDetector {
	if window <= 0 {
		window = DefaultStormWindow
	}
	if limit <= 0 {
		limit = DefaultStormLimit
	}
	return &stormDetector{window: window, limit: limit, states: map[history.Resource]*stormState{}}
}

// observe accounts for a request for res that ended. It returns the storm
// the request revealed. Its isNew is true when it is the first request
// found past the threshold since the resource's last storm ended.
func (d *stormDetector) observe(res history.Resource, n stormNote) (rep StormReport, isNew bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.states[res.ID()]
	if st == nil {
		st = &stormState{count: storm.NewCounter[stormNote](d.window, d.limit)}
		d.states[res.ID()] = st
	}
	progress := n.live || n.head > st.head || (n.listed && !st.listed)
	if n.head > st.head {
		st.head = n.head
	}
	st.listed = st.listed || n.listed
	if progress {
		st.count.Reset()
		st.end()
		return StormReport{}, false
	}
	if n.continued {
		return StormReport{}, false
	}
	storming := st.count.Add(n.at, n)
	switch {
	case storming && st.ep == nil:
		d.episodes++
		st.ep = &StormReport{Resource: res, Episode: d.episodes, Start: st.count.Oldest(), Window: d.window, Limit: d.limit, Ongoing: true}
		for _, e := range st.count.Held() {
			st.ep.add(e)
		}
		st.latest, st.stormAt = st.ep, n.at
		return *st.ep, true
	case storming:
		st.stormAt = n.at
		st.ep.add(n)
	case st.ep != nil && n.at.Sub(st.stormAt) >= d.window:
		st.end()
	case st.ep != nil:
		st.ep.add(n)
	}
	return StormReport{}, false
}

// end ends the resource's current storm, if any.
func (st *stormState) end() {
	if st.ep != nil {
		st.ep.Ongoing = false
		st.ep = nil
	}
}

// add counts one more request of the storm.
func (r *StormReport) add(n stormNote) {
	r.Requests++
	if n.at.After(r.Last) {
		r.Last = n.at
	}
	switch n.kind {
	case kindList:
		r.Lists++
	case kindWatch:
		r.Watches++
	case kindWatchList:
		r.WatchLists++
		if n.early {
			r.EndedBeforeInitialEventsEnd++
		}
	}
}

// storms returns each resource's last storm, current or over at now, in
// the order they began.
func (d *stormDetector) storms(now time.Time) []StormReport {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []StormReport
	for _, st := range d.states {
		if st.ep != nil && now.Sub(st.stormAt) >= d.window {
			st.end() // a quiet window has passed
		}
		if st.latest != nil {
			out = append(out, *st.latest)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Episode < out[j].Episode })
	return out
}
