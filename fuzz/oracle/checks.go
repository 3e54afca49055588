package oracle

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

func checkLive(o *observe.Observation) error {
	if o == nil {
		return fmt.Errorf("%w: %w: nil observation", ErrNotLive, ErrNoObservation)
	}
	if o.ConvergedAt < 0 {
		return fmt.Errorf("%w: never converged (last fault at %v)", ErrNotLive, o.LastFaultAt)
	}
	from := max(o.LastFaultAt, lastOwnChange(o), 0)
	bound := o.LiveBound
	if bound <= 0 {
		bound = observe.DefaultLiveBound
	}
	if took := o.ConvergedAt - from; took > bound {
		return fmt.Errorf("%w: converged at %v, %v after the last fault or own change at %v, want at most %v",
			ErrNotLive, o.ConvergedAt, took, from, bound)
	}
	return nil
}

// lastOwnChange is when the target sent its last write of the run's
// resource that the replay accepted; -1 when it sent none. The truth's
// final state may date from then: a store cannot have reached it before.
func lastOwnChange(o *observe.Observation) time.Duration {
	last := time.Duration(-1)
	name := o.Resource.Name()
	for _, r := range o.Requests {
		switch r.Verb {
		case "GET", "LIST", "WATCH", "WATCHLIST":
			continue
		}
		if r.Resource == name && r.Code >= 200 && r.Code < 300 {
			last = max(last, r.At)
		}
	}
	return last
}

func checkNoBookmarkObject(o *observe.Observation) error {
	if o == nil {
		return fmt.Errorf("%w: %w: nil observation", ErrBookmarkObject, ErrNoObservation)
	}
	var errs []error
	for i, d := range o.Deliveries {
		if d.Bookmark {
			errs = append(errs, fmt.Errorf("%w: delivery %d: %s of a bookmark at rv %s", ErrBookmarkObject, i, d.Op, d.RV))
		}
	}
	if obj, ok := o.Store[""]; ok {
		errs = append(errs, fmt.Errorf("%w: store holds an object with an empty key (rv %s)", ErrBookmarkObject, rvOf(obj)))
	}
	return errors.Join(errs...)
}

func checkNoHotLoop(o *observe.Observation) error {
	if o == nil {
		return fmt.Errorf("%w: %w: nil observation", ErrHotLoop, ErrNoObservation)
	}
	if o.HotLoop == nil {
		return nil
	}
	if n := o.HotLoop.Answering; n > 0 {
		return fmt.Errorf("%w: %s, by %v of virtual time, in answer to the garbage collector's %d deletes of the target's objects within it (the target made them again: their owners' deletion had not reached its cache)",
			ErrNotJudged, o.HotLoop.Why, o.HotLoop.At, n)
	}
	return withSite(fmt.Errorf("%w: %s, by %v of virtual time (%s); the goroutine whose request crossed the bound:\n%s",
		ErrHotLoop, o.HotLoop.Why, o.HotLoop.At, requestCounts(requestsPerResource(o.Requests)), o.HotLoop.Stack), stackSite(o.HotLoop.Stack))
}

func checkCleanStop(o *observe.Observation) error {
	if o == nil {
		return fmt.Errorf("%w: %w: nil observation", ErrUncleanStop, ErrNoObservation)
	}
	var errs []error
	count := map[string]int{}
	for _, p := range o.Panics {
		count[p]++
	}
	for _, p := range o.Panics { // in order, each message once
		switch n := count[p]; {
		case n == 1:
			errs = append(errs, fmt.Errorf("%w: panic: %s", ErrUncleanStop, p))
		case n > 1:
			errs = append(errs, fmt.Errorf("%w: panic (%d times): %s", ErrUncleanStop, n, p))
		}
		count[p] = 0
	}
	for i, e := range o.Errors {
		if i == 3 {
			errs = append(errs, fmt.Errorf("%w: %d more target errors", ErrUncleanStop, len(o.Errors)-i))
			break
		}
		errs = append(errs, fmt.Errorf("%w: target error: %s", ErrUncleanStop, e))
	}
	if o.NotStopped {
		errs = append(errs, fmt.Errorf("%w: Run did not return within %v of its context being cancelled", ErrUncleanStop, observe.StopGrace))
	}
	if o.LeftGoroutines != 0 {
		errs = append(errs, fmt.Errorf("%w: %d goroutines left after stop, want 0; the first:\n%s", ErrUncleanStop, o.LeftGoroutines, o.LeftStack))
	}
	site := ""
	switch {
	case len(o.PanicSites) > 0:
		site = o.PanicSites[0]
	case o.LeftGoroutines != 0:
		site = stackSite(o.LeftStack)
	case len(o.ErrorSites) > 0:
		site = o.ErrorSites[0]
	}
	return withSite(errors.Join(errs...), site)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// rvOf is o's resourceVersion, or why there is none.
func rvOf(o *history.Object) string {
	if o == nil {
		return "none: nil object"
	}
	return o.ResourceVersion
}
