package history

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
)

// Build reconstructs the history recorded in cassette files. They are one
// recording: a cassette file, or the parts a recorder rotated it into, in
// order (cassette.Group states the rule). Files that are not one recording
// are refused (cassette.ErrNotOneRecording, naming them), and so is a
// recording with no Kubernetes list or watch traffic (ErrNoTraffic).
// Errors name the file, interaction and event.
//
// Per resource, the first list gives the initial state. (So do WatchList
// initial events, or the ADDED events that open a watch from
// resourceVersion "" or "0".) Watch events after it are applied in order.
// Streams that overlap (a re-watch, a relist) are merged, repeats skipped.
// A relist that lands past the known state (after a 410, say) adds the
// difference as inferred events. An object whose UID changed was deleted
// and created again. Only traffic with the selectors and namespace of the
// resource's first list or watch counts; requests with others are left out.
// A resource that has only error answers gets no log: its errors go to
// History.Errors. How resourceVersions are ordered: see the package doc.
func Build(files ...*cassette.File) (*History, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no cassette file", ErrNoTraffic)
	}
	files, err := cassette.OneRecording(files...)
	if err != nil {
		return nil, err
	}
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
	appearance := map[Resource][]string{} // per resource, its RVs as they appear
	bs := &buildState{}
	for _, f := range files {
		for n, i := range f.Interactions {
			r, err := parseInteraction(bs, Location{File: f.Path, Interaction: n, Event: -1}, i, start)
			if err != nil {
				bs.wait()
				bs.blobs.finish()
				return nil, err
			}
			recs = append(recs, r)
			if r.kind != recList && r.kind != recWatch {
				continue
			}
			id := r.req.Resource.ID()
			appearance[id] = append(appearance[id], r.appearance()...)
		}
	}
	bs.wait()
	if err := bs.blobs.finish(); err != nil {
		return nil, err
	}
	orders := make(map[Resource]*Order, len(appearance))
	for id, rvs := range appearance {
		orders[id] = newOrder(rvs)
	}
	frames := map[Resource]int{} // per resource, its watch frames: a bound on its events
	for _, r := range recs {
		if r.kind == recWatch {
			frames[r.req.Resource.ID()] += len(r.frames)
		}
	}
	builders := map[Resource]*logBuilder{}
	for k, r := range recs {
		recs[k] = nil // what it holds but its objects is not needed past this step
		switch r.kind {
		case recDiscovery:
			h.Discovery[r.path] = r.body
			continue
		case recTable:
			h.Tables = append(h.Tables, r.table)
			continue
		case recWrite:
			h.Writes = append(h.Writes, *r.write)
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
			order := orders[id]
			if order == nil {
				order = newOrder(nil) // only error answers
			}
			b = &logBuilder{log: &Log{Resource: id, order: order, Events: make([]Event, 0, frames[id])}, first: r.loc, cur: map[string]*Object{}, chains: map[string]*chain{}}
			builders[id] = b
			h.Logs = append(h.Logs, b.log)
		}
		if err := b.add(r); err != nil {
			return nil, err
		}
	}
	logs := h.Logs[:0]
	var refused []RecordedError // error answers to list and watch requests
	for _, l := range h.Logs {
		b := builders[l.Resource.ID()]
		switch {
		case !b.started && b.log.Lists+b.log.Watches == 0:
			// Only error answers: there is no history to tell, just the errors.
			h.Errors = append(h.Errors, l.Errors...)
			refused = append(refused, l.Errors...)
			continue
		case !b.started:
			return nil, fmt.Errorf("%w: %s: %s: no complete list or watch was recorded", ErrContradiction, b.first, l.Resource)
		}
		h.applyDiscovery(l)
		logs = append(logs, l)
	}
	h.Logs = logs
	crds := h.CRDs()
	for _, l := range h.Logs {
		applyCRD(l, crds)
		l.finish()
	}
	sortErrors(h.Errors, h.Files)
	if len(h.Logs) == 0 {
		return nil, noTraffic(files, refused)
	}
	h.order, h.orderErr = mergeOrders(h.Logs)
	h.echoWrites()
	return h, nil
}

// ErrNoTraffic says a recording holds no Kubernetes list or watch traffic
// to build a history from.
var ErrNoTraffic = errors.New("no Kubernetes list or watch traffic")

// noTraffic returns the error of a recording with no log: what it holds
// instead.
func noTraffic(files []*cassette.File, refused []RecordedError) error {
	names := make([]string, len(files))
	n := 0
	var first *cassette.Interaction
	for k, f := range files {
		names[k] = f.Path
		n += len(f.Interactions)
		if first == nil && len(f.Interactions) > 0 {
			first = &f.Interactions[0]
		}
	}
	what := "no interactions"
	if first != nil {
		what = fmt.Sprintf("%s, none a LIST or WATCH of a Kubernetes resource answered with data (the first: %s %s)", interactions(n), first.Method, first.URL)
	}
	if len(refused) > 0 {
		sortErrors(refused, names)
		e := refused[0]
		what += fmt.Sprintf("; %d answered a list or watch request with an error (the first: %s: %s)",
			len(refused), e.From, strings.TrimSpace(fmt.Sprintf("%d %s", e.Code, e.Reason)))
	}
	return fmt.Errorf("%w: %w: %s: %s", cassette.ErrFormat, ErrNoTraffic, strings.Join(names, " "), what)
}

// interactions renders "1 interaction", "3 interactions".
func interactions(n int) string {
	if n == 1 {
		return "1 interaction"
	}
	return fmt.Sprintf("%d interactions", n)
}
