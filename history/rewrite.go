package history

import (
	"errors"
	"fmt"
	"sort"
)

// ErrRewrite says a rewrite of a history would break its resourceVersion
// order: two RVs mapped to one, or RVs out of order.
var ErrRewrite = errors.New("rewrite breaks the resourceVersion order")

// RVs returns every resourceVersion the history holds (logs' starts,
// objects, events and marks), oldest first (History.Order), each once. It
// fails when the logs' orders cannot be merged into one: two resources
// order RVs they share differently.
func (h *History) RVs() ([]string, error) {
	if h.orderErr != nil {
		return nil, h.orderErr
	}
	return sortedRVs(h.order, h.Logs...)
}

// sortedRVs returns the RVs logs hold, oldest first under order, each once.
func sortedRVs(order *Order, logs ...*Log) ([]string, error) {
	seen := map[string]bool{}
	var rvs []string
	add := func(rv string) {
		if rv != "" && !seen[rv] {
			seen[rv] = true
			rvs = append(rvs, rv)
		}
	}
	for _, l := range logs {
		add(l.StartRV)
		for _, o := range l.Initial {
			add(o.ResourceVersion)
		}
		for _, e := range l.Events {
			add(e.RV())
		}
		for _, e := range l.Own {
			add(e.RV())
		}
		for _, m := range l.Marks {
			add(m.RV)
		}
	}
	for _, rv := range rvs {
		if !order.Known(rv) {
			return nil, fmt.Errorf("%w: %q cannot be placed", ErrUnknownRV, rv)
		}
	}
	sort.SliceStable(rvs, func(i, j int) bool { return order.Less(rvs[i], rvs[j]) })
	return rvs, nil
}

// RewriteRVs returns a copy of h in which every resourceVersion rv is
// fn(rv): of the logs' starts, objects' metadata, events and marks. fn
// must keep the order. Each log of the result orders its RVs as h's orders
// theirs, whatever they look like. Objects' JSON is rewritten with
// WithResourceVersion; the discovery answers, recorded errors, files and
// span are shared with h.
func RewriteRVs(h *History, fn func(string) string) (*History, error) {
	rvs, err := h.RVs()
	if err != nil {
		return nil, err
	}
	to := make(map[string]string, len(rvs))
	for _, rv := range rvs {
		n := fn(rv)
		if n == "" {
			return nil, fmt.Errorf("%w: %s mapped to \"\"", ErrRewrite, rv)
		}
		to[rv] = n
	}
	rename := func(rvs []string) []string {
		out := make([]string, len(rvs))
		for i, rv := range rvs {
			out[i] = to[rv]
		}
		return out
	}
	if _, err := checkedOrder(rename(rvs)); err != nil {
		return nil, err
	}
	objs := map[*Object]*Object{}
	obj := func(o *Object) (*Object, error) {
		if o == nil || o.ResourceVersion == "" {
			return o, nil
		}
		if c, ok := objs[o]; ok {
			return c, nil
		}
		if to[o.ResourceVersion] == o.ResourceVersion {
			return o, nil
		}
		c, err := WithResourceVersion(o, to[o.ResourceVersion])
		if err != nil {
			return nil, err
		}
		objs[o] = c
		return c, nil
	}
	out := &History{Discovery: h.Discovery, Errors: h.Errors, Files: h.Files, Span: h.Span, Writes: h.Writes}
	for _, l := range h.Logs {
		own, err := sortedRVs(l.order, l)
		if err != nil {
			return nil, err
		}
		order, err := checkedOrder(rename(own))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.Resource, err)
		}
		nl := copyLog(l, order)
		nl.StartRV = to[l.StartRV]
		for i, o := range l.Initial {
			if nl.Initial[i], err = obj(o); err != nil {
				return nil, err
			}
		}
		for i := range nl.Events {
			if nl.Events[i].Object, err = obj(l.Events[i].Object); err != nil {
				return nil, err
			}
		}
		for i := range nl.Own {
			if nl.Own[i].Object, err = obj(l.Own[i].Object); err != nil {
				return nil, err
			}
		}
		for i := range nl.Marks {
			nl.Marks[i].RV = to[l.Marks[i].RV]
		}
		nl.finish()
		out.Logs = append(out.Logs, nl)
	}
	out.order, out.orderErr = mergeOrders(out.Logs)
	return out, nil
}

// ReplaceEvents returns a copy of h whose log of resource r has the events evs
// instead of its own (Prev is recomputed). An RV of evs that the log does not hold
// is placed in its order just before the next event's RV that it holds. It goes at
// the end when none follows. When every RV is a decimal integer, they simply compare
// by value. The events must be in strictly increasing RV order after the log's
// start. Other logs are copied unchanged.
func ReplaceEvents(h *History, r Resource, evs []Event) (*History, error) {
	target, ok := h.Log(r)
	if !ok {
		return nil, fmt.Errorf("%w: no log of %s", ErrRewrite, r)
	}
	rvs, err := sortedRVs(target.order, target)
	if err != nil {
		return nil, err
	}
	known := make(map[string]bool, len(rvs))
	for _, rv := range rvs {
		known[rv] = true
	}
	// new RVs go before the next known event RV that follows them
	before := map[string][]string{}
	var pending []string
	for _, e := range evs {
		rv := e.RV()
		if known[rv] {
			before[rv] = append(before[rv], pending...)
			pending = nil
			continue
		}
		if rv == "" {
			return nil, fmt.Errorf("%w: an event of %s has no resourceVersion", ErrRewrite, r)
		}
		known[rv] = true
		pending = append(pending, rv)
	}
	appearance := make([]string, 0, len(rvs)+len(evs))
	for _, rv := range rvs {
		appearance = append(appearance, before[rv]...)
		appearance = append(appearance, rv)
	}
	appearance = append(appearance, pending...)
	order := newOrder(appearance)
	if order.numeric {
		sort.SliceStable(appearance, func(i, j int) bool { return order.Less(appearance[i], appearance[j]) })
	}
	if order, err = checkedOrder(appearance); err != nil {
		return nil, err
	}
	prev := target.StartRV
	for _, e := range evs {
		if !order.Less(prev, e.RV()) {
			return nil, fmt.Errorf("%w: %s: event %s does not follow %s", ErrRewrite, r, e.RV(), prev)
		}
		prev = e.RV()
	}
	out := &History{Discovery: h.Discovery, Errors: h.Errors, Files: h.Files, Span: h.Span, Writes: h.Writes}
	for _, l := range h.Logs {
		nl := copyLog(l, l.order)
		if l == target {
			nl = copyLog(l, order)
			nl.Events = append([]Event(nil), evs...)
		}
		nl.finish()
		out.Logs = append(out.Logs, nl)
	}
	out.order, out.orderErr = mergeOrders(out.Logs)
	return out, nil
}

// checkedOrder builds the order of RVs given oldest first, and checks that
// it orders them so.
func checkedOrder(appearance []string) (*Order, error) {
	order := newOrder(appearance)
	for i := 1; i < len(appearance); i++ {
		if !order.Less(appearance[i-1], appearance[i]) {
			return nil, fmt.Errorf("%w: %s does not come before %s", ErrRewrite, appearance[i-1], appearance[i])
		}
	}
	return order, nil
}

// copyLog copies l with fresh slices (so that finish can fill them) under
// order.
func copyLog(l *Log, order *Order) *Log {
	return &Log{
		Resource: l.Resource, StartRV: l.StartRV,
		Initial: append([]*Object(nil), l.Initial...),
		Events:  append([]Event(nil), l.Events...),
		Own:     append([]Event(nil), l.Own...),
		Marks:   append([]Mark(nil), l.Marks...),
		Errors:  l.Errors, Lists: l.Lists, Watches: l.Watches,
		order: order,
	}
}

// AddLog returns a copy of h with an empty log of r, starting at startRV.
// That is a resource a replay serves that the recording never listed or
// watched (what a target creates, say). Its objects start with none. h
// must have no log of r. startRV must fit h's order; for a numeric
// history it is an integer.
func AddLog(h *History, r Resource, startRV string) (*History, error) {
	if _, ok := h.Log(r); ok {
		return nil, fmt.Errorf("%w: %s has a log already", ErrRewrite, r)
	}
	order := newOrder([]string{startRV})
	if h.order != nil && h.order.numeric && !order.numeric {
		return nil, fmt.Errorf("%w: %s: start %q is no integer, as the history's RVs are", ErrRewrite, r, startRV)
	}
	out := &History{Discovery: h.Discovery, Errors: h.Errors, Files: h.Files, Span: h.Span, Writes: h.Writes}
	for _, l := range h.Logs {
		nl := copyLog(l, l.order)
		nl.finish()
		out.Logs = append(out.Logs, nl)
	}
	nl := &Log{Resource: r, StartRV: startRV, order: order}
	nl.finish()
	out.Logs = append(out.Logs, nl)
	out.order, out.orderErr = mergeOrders(out.Logs)
	return out, nil
}
