package oracle

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/internal/content"
	"github.com/lwreplay/lwreplay/fuzz/internal/serving"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/internal/storm"
)

// The invariants on what a client does, not only where it ends.

// progressBound is how long a client may take to sync after a persistent
// fault closes one way to the state but leaves LIST open. It is the
// replay's longest watch (serving.WatchCap, 5 minutes), then 5 minutes
// more. A WatchList whose initial events a fault slows is given up only
// when its timeout ends it. Only then does client-go fall back to LIST. A
// backoff series reaches its 30 s cap within a minute. Five minutes leave
// room for a client that tries its first way a few times.
const progressBound = serving.WatchCap + 5*time.Minute

var (
	// ErrRequestStorm says a client kept asking without making progress.
	ErrRequestStorm = errors.New("request storm")
	// ErrNoProgress says a client did not sync although a way was open.
	ErrNoProgress = errors.New("no progress")
)

// progressTimes returns when the target made progress. That is when it
// synced, and each delivery of a resourceVersion newer than every one
// before it. A request for a newer resourceVersion is progress too, in
// checkNoRequestStorm.
func progressTimes(o *observe.Observation) []time.Duration {
	var out []time.Duration
	if o.SyncedAt >= 0 {
		out = append(out, o.SyncedAt)
	}
	newest := ""
	for _, d := range o.Deliveries {
		if d.RV == "" {
			continue
		}
		if newest == "" || (o.TruthLog != nil && o.TruthLog.Order().Less(newest, d.RV)) {
			newest = d.RV
			out = append(out, d.At)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// checkNoRequestStorm counts the target's requests for its resource. It
// uses the storm counter the replayer warns with (internal/storm). More
// than storm.Limit within storm.Window with no progress between the first
// and the last is a storm. No progress means no newer resourceVersion
// delivered or asked for, and no sync.
func checkNoRequestStorm(o *observe.Observation) error {
	if o == nil {
		return fmt.Errorf("%w: %w: nil observation", ErrRequestStorm, ErrNoObservation)
	}
	name := o.Resource.Name()
	progress := progressTimes(o)
	madeProgress := func(from, to time.Duration) bool {
		i := sort.Search(len(progress), func(i int) bool { return progress[i] >= from })
		return i < len(progress) && progress[i] <= to
	}
	count := storm.NewCounter[observe.Request](storm.Window, storm.Limit)
	newest := ""             // the newest resourceVersion asked for
	var prevAt time.Duration // when the previous request was sent
	first := true
	for _, r := range o.Requests {
		if r.Resource != name || !listWatch(r.Verb) {
			continue // a controller's writes and GETs are its workqueue's: no-write-storm, no-conflict-loop
		}
		// a client that resumes from ever newer versions makes progress;
		// so does one delivered or synced since its last request (or at
		// the same instant)
		asks := r.RV != "" && r.RV != "0" && (newest == "" || (o.TruthLog != nil && o.TruthLog.Order().Less(newest, r.RV)))
		if asks {
			newest = r.RV
		}
		if asks || (!first && madeProgress(prevAt, r.At)) {
			count.Reset()
		}
		prevAt, first = r.At, false
		if !count.Add(time.Time{}.Add(r.At), r) {
			continue
		}
		held := count.Held()
		return withSite(fmt.Errorf("%w: %d requests for %s from %v to %v of virtual time (%s) with no progress (no newer resourceVersion delivered or asked for, not synced), want at most %d within %v",
			ErrRequestStorm, len(held), name, held[0].At, r.At, content.VerbCounts(held), storm.Limit, storm.Window), requestSite(r))
	}
	return nil
}

// leavesList reports whether every persistent decision that fired leaves
// a client the LIST path (none can fail every LIST). It also returns when
// the first fired. Its ok is false when none fired.
func leavesList(fired []faults.Firing) (open bool, first time.Duration, ok bool) {
	open = true
	for _, fr := range fired {
		if !fr.Persistent {
			continue
		}
		if f, known := faults.Lookup(fr.Fault); known && f.FailsLists {
			open = false
		}
		if !ok || fr.At < first {
			first = fr.At
		}
		ok = true
	}
	return open, first, ok
}

func checkProgress(o *observe.Observation) error {
	if o == nil {
		return fmt.Errorf("%w: %w: nil observation", ErrNoProgress, ErrNoObservation)
	}
	open, first, ok := leavesList(o.Fired)
	if !ok || !open {
		return nil
	}
	// SyncedAt is the last instance's. A fresh instance, after a crash, a
	// restart or an exit, has the bound from its start. A persistent
	// crash-after-write makes one at any later write, such as an Event's
	// series update minutes on.
	for _, at := range append(append([]time.Duration(nil), o.Crashes...), o.Restarts...) {
		first = max(first, at)
	}
	for _, e := range o.Exits { // a container the kubelet restarted
		first = max(first, e.RestartedAt)
	}
	if o.SyncedAt >= 0 && o.SyncedAt <= first+progressBound {
		return nil
	}
	if o.SyncedAt < 0 && o.EndedAt < first+progressBound && o.BoundEnd == nil && o.HotLoop == nil {
		// a run a behaviour bound ended (a hot loop) is judged
		return fmt.Errorf("%w: the run ended at %v, before the bound (%v)", ErrNotJudged, o.EndedAt, first+progressBound)
	}
	synced := "never synced"
	if o.SyncedAt >= 0 {
		synced = fmt.Sprintf("synced at %v", o.SyncedAt)
	}
	// where it went wrong: what sent its last LIST or WATCH of the
	// resource that did not sync, else its last request. Its other
	// requests (a leader election's renewals) are not what failed to sync.
	site := ""
	for i := len(o.Requests) - 1; i >= 0; i-- {
		if r := o.Requests[i]; r.Resource == o.Resource.Name() && listWatch(r.Verb) {
			site = requestSite(r)
			break
		}
	}
	if n := len(o.Requests); site == "" && n > 0 {
		site = requestSite(o.Requests[n-1])
	}
	return withSite(fmt.Errorf("%w: %s; the persistent faults that fired leave the LIST path open, want synced by %v, 10 minutes after %v (the first of them, or the last fresh instance's start) (%s)",
		ErrNoProgress, synced, first+progressBound, first, content.VerbCounts(o.Requests)), site)
}

// listWatch reports whether verb is one of the list/watch protocol's:
// LIST, WATCH or WATCHLIST, which a Reflector backs off.
func listWatch(verb string) bool {
	return verb == "LIST" || verb == "WATCH" || verb == "WATCHLIST"
}
