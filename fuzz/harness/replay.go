package harness

import (
	"net/http"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/internal/serving"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/replayer/verbatim"
)

// replay is the server side of a run: the model apiserver or a
// reproducer's verbatim answers.
type replay interface {
	Transport() http.RoundTripper
	FiredCount() int
	Fired() []faults.Firing
	Truth() *history.History
	Writes() (log []history.WriteAnswer, logged bool)
	ExhaustedOf(res history.Resource) bool
	Spent() bool
	FirstListing(res history.Resource) (rv string, ok bool)
	ForgetListings()
	Collected() int
}

// verbatimReplay replays a reproducer; its truth is the history the
// reproducer builds, and no fault fires.
type verbatimReplay struct {
	*verbatim.Replay
	truth   *history.History
	latency time.Duration
}

// Transport is the reproducer's in-process transport, with the run's
// latency: a reproducer replays in the virtual time its recording took.
func (v verbatimReplay) Transport() http.RoundTripper { return v.TransportWithLatency(v.latency) }

func (v verbatimReplay) FiredCount() int         { return 0 }
func (v verbatimReplay) Fired() []faults.Firing  { return nil }
func (v verbatimReplay) Truth() *history.History { return v.truth }
func (v verbatimReplay) Spent() bool             { return true }

// Collected is 0: a verbatim replay collects no garbage.
func (v verbatimReplay) Collected() int { return 0 }

// ForgetListings does nothing: no fault crashes or stops a target a
// verbatim replay serves, so none starts afresh.
func (v verbatimReplay) ForgetListings() {}

// Writes returns no log: a verbatim replay keeps none of its answers to
// writes.
func (v verbatimReplay) Writes() ([]history.WriteAnswer, bool) { return nil, false }

// modelReplay is a replay of the model apiserver, which logs the
// target's writes.
type modelReplay struct{ *replayer.Server }

// Writes returns the server's log of the target's writes.
func (m modelReplay) Writes() ([]history.WriteAnswer, bool) { return m.Server.Writes(), true }

// ExhaustedOf reports whether every recorded answer has been given.
func (v verbatimReplay) ExhaustedOf(history.Resource) bool { return v.Exhausted() }

// newReplay returns the replay s asks for. crash crashes the target and
// stop stops it when a fault says so. The model apiserver tells served
// what it serves; a verbatim replay tells nothing. With actors, the model
// apiserver serves the history they take over (servedHistory).
func newReplay(s Spec, crash, stop func(), served func(replayer.Served)) (replay, error) {
	latency := Latency(s.Latency)
	if s.Reproducer == nil {
		h, err := servedHistory(s.History, s.Actors)
		if err != nil {
			return nil, err
		}
		opts := []replayer.Option{replayer.WithPlan(s.Plan), replayer.WithMaxWatchTimeout(serving.WatchCap), replayer.WithPace(s.Pace),
			replayer.WithHooks(replayer.Hooks{TargetCrash: crash, TargetStop: stop, RunResource: &s.Resource, OnServed: served}),
			replayer.WithLatency(latency), replayer.WithFaultsOnActors(s.FaultsOnActors), replayer.WithWriteReuse()}
		return modelReplay{replayer.New(h, append(opts, replayer.ForActors(s.Actors)...)...)}, nil
	}
	v, err := verbatim.New(s.Reproducer...)
	if err != nil {
		return nil, err
	}
	return verbatimReplay{Replay: v, truth: s.History, latency: latency}, nil
}

// Latency is the virtual latency of a run's requests whose Spec.Latency
// (or fuzz.Options.Latency) is d: d when positive, none when negative,
// replayer.DefaultLatency when zero. Virtual time stands still until every
// goroutine of the run blocks. The latency moves it on at each request, as
// a real apiserver's answer takes milliseconds. So the timestamps a target
// writes differ from one request to the next, such as an Event's name
// (<object>.<hex of time.Now().UnixNano()>).
func Latency(d time.Duration) time.Duration {
	switch {
	case d < 0:
		return 0
	case d == 0:
		return replayer.DefaultLatency
	}
	return d
}
