package oracle

import (
	"errors"
	"fmt"

	"github.com/lwreplay/lwreplay/fuzz/internal/serving"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/weakcache"
)

// ErrInconsistentView says a handler could read a store that held no state
// the server served.
var ErrInconsistentView = errors.New("inconsistent view")

// servedViews returns the digest of every state of l, position by
// position: the states a server could have served.
func servedViews(l *history.Log) map[uint64]bool {
	return servedViewsCache.Get(l, func(l *history.Log) map[uint64]bool {
		rvs := map[string]string{}
		var sum uint64
		for _, o := range l.Initial {
			rvs[o.Key()] = o.ResourceVersion
			sum += observe.EntrySum(o.Key(), o.ResourceVersion)
		}
		out := map[uint64]bool{sum: true}
		for _, e := range l.Events {
			k := e.Object.Key()
			if rv, ok := rvs[k]; ok {
				sum -= observe.EntrySum(k, rv)
				delete(rvs, k)
			}
			if e.Type != history.Deleted {
				rvs[k] = e.Object.ResourceVersion
				sum += observe.EntrySum(k, e.Object.ResourceVersion)
			}
			out[sum] = true
		}
		return out
	})
}

// servedViewsCache holds each log's served state digests.
var servedViewsCache weakcache.Cache[history.Log, map[uint64]bool]

func checkConsistentView(o *observe.Observation) error {
	if err := needTruth(o, ErrInconsistentView); err != nil {
		return err
	}
	if !o.Gates[observe.GateAtomicFIFO] {
		return fmt.Errorf("%w: client-go promises it with the AtomicFIFO gate on only", ErrNotJudged)
	}
	if b := serving.FiredBreaking(o); len(b) > 0 {
		// a breaking fault makes the client hold states never served;
		// whether a handler reads one depends on scheduling
		return fmt.Errorf("%w: breaking fault %s fired", ErrNotJudged, b[0])
	}
	return viewViolations(o)
}

// viewViolations checks o's store views against the states its truth
// served, whatever the gates.
func viewViolations(o *observe.Observation) error {
	served := servedViews(o.TruthLog)
	for _, v := range o.Views {
		if served[v.Sum] {
			continue
		}
		what := "a call"
		if v.Delivery < len(o.Deliveries) {
			d := o.Deliveries[v.Delivery]
			what = fmt.Sprintf("its %s of %s at rv %s, at %v", d.Op, d.Key, d.RV, d.At)
		}
		return fmt.Errorf("%w: delivery %d (%s): the store a handler could read held %d objects in a state the server never served",
			ErrInconsistentView, v.Delivery, what, v.Keys)
	}
	return nil
}
