package harness

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/weakcache"
)

// A run's actors (Spec.Actors) are the cluster's own controllers beside its
// target. They start in the run's bubble before the target, each through a
// transport of its own (replayer.Server.TransportAs). So their requests
// bypass the target's request bound, their writes are not the target's,
// and a fault plan does not strike them. A crash or restart of the target
// leaves them running. When the run stops looking, nothing they send
// reaches the replay any more. Their context is cancelled and the run waits
// for each Run to return. A reproducer's verbatim replay runs none: what
// they did is in the answers it replays.

// actorQuietEnd is how long, in virtual time, a run's actors must have
// written nothing but leases and Events before the run may end early.
// The cluster's controllers wait seconds between steps: a Job's pod
// failure backs off 10 s (kubernetes pkg/controller/job,
// DefaultJobPodFailureBackOff). Their next write is one the target may
// answer. A run with actors lasts this long at least.
const actorQuietEnd = 30 * time.Second

// actorRuns are the actors of one run.
type actorRuns struct {
	start  time.Time
	cancel context.CancelFunc
	runs   []*actorRun

	mu      sync.Mutex
	wroteAt time.Duration // when an actor last wrote something other than a lease or an Event; -1 before
}

// actorRun is one actor's Run.
type actorRun struct {
	a    actor.Actor
	gate *crashGate
	done chan struct{} // closed when its Run has returned

	// how its Run ended (read once done is closed)
	err     error
	panic   any
	endedAt time.Duration
}

// startActors starts s.Actors on the model apiserver srv, in order, and
// names them in obs. They run until ctx (the run's) is done or stop is
// called; wake is called when one's Run returns. It returns once their
// first requests have been answered and every one waits. Two clients
// asking at one virtual instant are a race of goroutines: an actor's
// stream that reached the head first changes what the target's first LIST
// gets. One a latency later is not. It must run in the run's bubble; nil
// means no actors (none asked, or a verbatim replay).
func startActors(ctx context.Context, s Spec, r replay, start time.Time, wake func(), obs *observe.Observation) *actorRuns {
	srv, ok := r.(modelReplay)
	if !ok || len(s.Actors) == 0 {
		return nil
	}
	obs.Actors = actorNames(s.Actors)
	defer func() {
		synctest.Wait()
		time.Sleep(Latency(s.Latency) + actorOffset(len(s.Actors)-1))
		synctest.Wait()
	}()
	ctx, cancel := context.WithCancel(ctx)
	rs := &actorRuns{start: start, cancel: cancel, wroteAt: -1}
	for i, a := range s.Actors {
		r := &actorRun{a: a, done: make(chan struct{})}
		w := &actorWrites{next: actorTransport(srv, a.Name), runs: rs, offset: actorOffset(i)}
		r.gate = &crashGate{next: w, open: map[*gatedBody]bool{}}
		env := actor.Env{Config: &rest.Config{Host: level.ReplayHost, Transport: r.gate, UserAgent: actor.UserAgent(a.Name)}}
		rs.runs = append(rs.runs, r)
		go func() {
			defer wake()
			defer close(r.done)
			defer func() {
				if r.panic = recover(); r.panic != nil {
					r.endedAt = time.Since(start)
				}
			}()
			r.err = a.Run(ctx, env)
			r.endedAt = time.Since(start)
		}()
	}
	return rs
}

// actorTransport is the transport of actor name's requests to srv.
func actorTransport(srv modelReplay, name string) http.RoundTripper {
	return srv.TransportAs(name)
}

// failed returns what went wrong with an actor so far: a Run that returned
// an error (it could not start) or panicked before the run stopped it.
// It returns "" when nothing did.
func (rs *actorRuns) failed() string {
	if rs == nil {
		return ""
	}
	for _, r := range rs.runs {
		select {
		case <-r.done:
			if why := r.failure(); why != "" {
				return why
			}
		default:
		}
	}
	return ""
}

// failure says how r's Run failed ("" when it did not); done is closed.
func (r *actorRun) failure() string {
	switch {
	case r.panic != nil:
		return fmt.Sprintf("actor %s: Run panicked at %v: %v", r.a.Name, r.endedAt, r.panic)
	case r.err != nil && !errors.Is(r.err, context.Canceled):
		return fmt.Sprintf("actor %s: Run returned at %v: %v", r.a.Name, r.endedAt, r.err)
	}
	return ""
}

// quietAt returns when the run is quiet, given that its target is at
// target. That is at least actorQuietEnd after the actors' last write
// (other than to a lease or an Event), or after the start.
func (rs *actorRuns) quietAt(target time.Duration) time.Duration {
	if rs == nil {
		return target
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return max(target, max(rs.wroteAt, 0)+actorQuietEnd)
}

// stop cuts the actors off the replay (their requests fail from now on,
// their streams close) and cancels their context.
func (rs *actorRuns) stop() {
	if rs == nil {
		return
	}
	for _, r := range rs.runs {
		r.gate.kill()
	}
	rs.cancel()
}

// wait waits until each actor's Run has returned, or until
// observe.StopGrace after stoppedAt (virtual time since the start). It
// records in obs how each ended: every failure, and a Run that did not
// return. A failure fails t: the run's setup broke, not the target.
func (rs *actorRuns) wait(t *testing.T, w *spinWatch, obs *observe.Observation, stoppedAt time.Duration) {
	if rs == nil {
		return
	}
	defer func() {
		if len(obs.ActorErrors) > 0 {
			w.errorf(t, "actors: got %s, want each to run until the run's end (the run's setup failed, not the target)", strings.Join(obs.ActorErrors, "; "))
		}
	}()
	for _, r := range rs.runs {
		if !r.returned(stoppedAt + observe.StopGrace - time.Since(rs.start)) {
			obs.ActorErrors = append(obs.ActorErrors, fmt.Sprintf("actor %s: Run had not returned %v after its context was cancelled", r.a.Name, observe.StopGrace))
			continue
		}
		if why := r.failure(); why != "" {
			obs.ActorErrors = append(obs.ActorErrors, why)
		}
	}
}

// returned reports whether r's Run has returned, waiting up to d for it.
func (r *actorRun) returned(d time.Duration) bool {
	select {
	case <-r.done:
		return true
	default:
	}
	if d <= 0 {
		return false
	}
	select {
	case <-r.done:
		return true
	case <-time.After(d):
		return false
	}
}

// actorWrites notes when an actor's write goes by.
type actorWrites struct {
	next   http.RoundTripper
	runs   *actorRuns
	offset time.Duration // added to the run's latency
}

// RoundTrip notes r's time when it is a write that counts (see heartbeat)
// and passes it on.
func (w *actorWrites) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !heartbeat(r.URL.Path) {
		at := time.Since(w.runs.start)
		w.runs.mu.Lock()
		w.runs.wroteAt = max(w.runs.wroteAt, at)
		w.runs.mu.Unlock()
	}
	time.Sleep(w.offset)
	return w.next.RoundTrip(r)
}

// actorOffset is how much longer than the target's the requests of a run's
// i-th actor take to reach the replay: a few microseconds, other for each
// actor. The target and its actors may ask at one virtual instant (a timer
// on a round period, an event that reached them all). Then they reach the
// replay one after the other, in a fixed order, rather than as their
// goroutines happen to run. The steps are primes, so that requests sent at
// other instants rarely meet.
func actorOffset(i int) time.Duration {
	primes := [...]time.Duration{1009, 1013, 1019, 1021, 1031, 1033, 1039, 1049, 1051, 1061, 1063, 1069}
	return primes[i%len(primes)] + time.Duration(i/len(primes))*time.Microsecond
}

// heartbeat reports whether a write to path is a controller's bookkeeping
// rather than a change of the cluster's state. That is a lease (leader
// election, a node's heartbeat) or an Event. An actor that renews one
// keeps writing as long as it runs; the run's end does not wait for it.
func heartbeat(path string) bool {
	if strings.HasPrefix(path, "/apis/coordination.k8s.io/") || strings.HasPrefix(path, "/apis/events.k8s.io/") {
		return true
	}
	rest, ok := strings.CutPrefix(path, "/api/v1/")
	if !ok {
		return false
	}
	parts := strings.Split(rest, "/")
	if len(parts) >= 3 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	return len(parts) > 0 && parts[0] == "events"
}

// takesOf returns what actors take over from a recording, in the
// history's terms.
func takesOf(actors []actor.Actor) []history.Take {
	var out []history.Take
	for _, a := range actors {
		for _, t := range a.Takes {
			take := history.Take{Group: t.Resource.Group, Resource: t.Resource.Resource}
			for _, k := range t.ControllerKinds {
				take.ControllerKinds = append(take.ControllerKinds, history.GroupKind{Group: k.Group, Kind: k.Kind})
			}
			out = append(out, take)
		}
	}
	return out
}

// takeovers memoizes each history's takeovers, by what is taken: the
// runs of a campaign share its histories and actors.
var takeovers weakcache.Cache[history.History, *takeoverMemo]

// takeoverMemo is one history's takeovers, by what is taken.
type takeoverMemo struct {
	mu sync.Mutex
	m  map[string]takeoverResult
}

// takeoverResult is one takeover: nil h when nothing was taken (the
// history itself, which the memo must not hold).
type takeoverResult struct {
	h   *history.History
	err error
}

// servedHistory returns the history a run with actors serves: h with the
// recorded objects they take over handed to them (history.Takeover).
func servedHistory(h *history.History, actors []actor.Actor) (*history.History, error) {
	takes := takesOf(actors)
	if len(takes) == 0 {
		return h, nil
	}
	memo := takeovers.Get(h, func(*history.History) *takeoverMemo { return &takeoverMemo{m: map[string]takeoverResult{}} })
	var key strings.Builder
	for _, t := range takes {
		key.WriteString(t.String() + ";")
	}
	memo.mu.Lock()
	defer memo.mu.Unlock()
	res, ok := memo.m[key.String()]
	if !ok {
		got, err := history.Takeover(h, takes)
		if got == h {
			got = nil
		}
		res = takeoverResult{h: got, err: err}
		memo.m[key.String()] = res
	}
	switch {
	case res.err != nil:
		return nil, fmt.Errorf("actors %s: %w", strings.Join(actorNames(actors), ", "), res.err)
	case res.h == nil:
		return h, nil
	}
	return res.h, nil
}

// actorNames returns the actors' names, in order.
func actorNames(actors []actor.Actor) []string {
	out := make([]string, len(actors))
	for i, a := range actors {
		out[i] = a.Name
	}
	return out
}
