// Package mutate turns a cassette and a fault plan into a reproducer. That
// is a standalone cassette of the perturbed traffic, which replays the same
// with no plan.
//
// It runs a reference client against the replayer with the plan: one real
// client-go informer per recorded resource, exactly as lwreplay record
// drives them. It records what the client was sent. It marks every
// interaction to be replayed verbatim (verbatim.Replay). Traffic that
// breaks the watch contract on purpose cannot be modelled as a history. So
// the reproducer replays it byte for byte, in order.
//
// Typical use:
//
//	res, err := mutate.Run(ctx, files, "repro.yaml", mutate.Options{Plan: plan})
//	fmt.Println(faults.Story(res.Fired))
package mutate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/recorder"
	"github.com/lwreplay/lwreplay/recorder/capture"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/replayer/verbatim"
)

// ErrUnsupported says a plan holds a fault whose traffic a reproducer
// cannot carry.
var ErrUnsupported = errors.New("not supported by mutate")

// ErrNotSettled says the reference client had not caught up with the end of
// the history when the timeout passed.
var ErrNotSettled = errors.New("the reference client did not settle")

// ErrStorm says the reference client stormed the replay. It asked for a
// resource again and again, gaining nothing (see
// replayer.WithStormDetection), so the run was stopped. client-go does so
// when a WatchList stream ends before its initial-events-end bookmark. It
// restarts it at once, with no backoff and no fallback to LIST
// (kubernetes/kubernetes#140890).
var ErrStorm = errors.New("the reference client stormed the replay")

// Options shape a mutation.
type Options struct {
	// Plan is the fault plan to apply.
	Plan faults.Plan
	// WatchList is how the reference client starts (default: client-go's).
	WatchList capture.WatchListMode
	// Settle is how long the replay must stay quiet before the run ends,
	// with the history served to its end and every informer synced. The
	// default is 5 s. That is longer than client-go's first backoffs, so a
	// client recovering from a fault has asked again before the run ends.
	Settle time.Duration
	// Timeout bounds the run (default 2 min).
	Timeout time.Duration
	// Poll is how often the run looks at its progress (default 50 ms).
	Poll time.Duration
	// StormWindow and StormLimit say when the reference client storms
	// the replay. That is more than StormLimit requests for one
	// resource within StormWindow that gain it nothing. The defaults
	// are replayer.DefaultStormWindow and replayer.DefaultStormLimit.
	StormWindow time.Duration
	StormLimit  int
}

func (o Options) withDefaults() Options {
	d := Options{Settle: 5 * time.Second, Timeout: 2 * time.Minute, Poll: 50 * time.Millisecond,
		StormWindow: o.StormWindow, StormLimit: o.StormLimit}
	if o.Settle > 0 {
		d.Settle = o.Settle
	}
	if o.Timeout > 0 {
		d.Timeout = o.Timeout
	}
	if o.Poll > 0 {
		d.Poll = o.Poll
	}
	d.Plan, d.WatchList = o.Plan, o.WatchList
	return d
}

// Result says what a mutation did.
type Result struct {
	// Fired lists the plan's decisions that fired, in order.
	Fired []faults.Firing
	// Files are the reproducer files written; none when Run failed.
	Files []string
	// Interactions counts the recorded exchanges.
	Interactions int
}

// Run replays files under o.Plan to a reference client and writes the
// traffic it was sent to out (a .yaml path) as a reproducer. A client that
// storms the replay is stopped within a request of the storm's discovery.
// Run then returns a *StormError (wrapping ErrStorm) that tells what it
// did. The reproducer is recorded in a temporary directory beside out, and
// renamed into place once the run has succeeded. So no run, failed or
// killed, leaves a partial reproducer. Parts of an earlier reproducer at
// out that the new one does not replace are removed.
func Run(ctx context.Context, files []*cassette.File, out string, o Options) (Result, error) {
	if err := CheckPlan(o.Plan); err != nil {
		return Result{}, err
	}
	h, err := history.Build(files...)
	if err != nil {
		return Result{}, err
	}
	stormed := make(chan struct{})
	var once sync.Once
	srv := replayer.New(h, replayer.WithPlan(o.Plan), replayer.WithStormDetection(o.StormWindow, o.StormLimit),
		replayer.WithStormHandler(func(replayer.StormReport) { once.Do(func() { close(stormed) }) }))
	var resources []string
	for _, l := range h.Logs {
		resources = append(resources, l.Resource.Name())
	}
	res, err := record(ctx, srv, resources, out, o, stormWatch{stormed, srv.Storms}, recorder.WithBeforeSave(cassette.MarkVerbatim))
	res.Fired = srv.Fired()
	return res, err
}

// CheckPlan reports, wrapping ErrUnsupported, the first fault of p that a
// reproducer cannot carry. The recorder keeps whole JSON documents only. So
// a frame that is not JSON, and the stream after it, would not reach the
// reproducer. Run checks it first; a caller may check it before loading
// anything.
func CheckPlan(p faults.Plan) error {
	for _, d := range p.Decisions {
		if f, ok := faults.Lookup(d.Fault); ok && f.Unrecordable {
			return fmt.Errorf("%w: %s: a frame that is not JSON cannot be recorded", ErrUnsupported, d.Fault)
		}
	}
	return nil
}

// stormWatch is how a run learns that its client storms the replay: the
// channel closes when a storm begins, storms tells them.
type stormWatch struct {
	stormed <-chan struct{}
	storms  func() []replayer.StormReport
}

// StormError is the error Run returns when the reference client stormed
// the replay: what it did, per resource. It wraps ErrStorm.
type StormError struct {
	// Storms holds each storming resource's storm, in the order they
	// began.
	Storms []replayer.StormReport
}

// Error tells the storms: "the reference client stormed the replay: 1,200
// WatchList requests for configmaps in 2s, each ending before
// initial-events-end; no progress".
func (e *StormError) Error() string {
	parts := make([]string, 0, len(e.Storms))
	for _, r := range e.Storms {
		parts = append(parts, r.String())
	}
	return ErrStorm.Error() + ": " + strings.Join(parts, "; ")
}

// Unwrap returns ErrStorm.
func (e *StormError) Unwrap() error { return ErrStorm }

// WatchListCut reports whether a storm's WatchList requests ended before
// their initial-events-end bookmark (kubernetes/kubernetes#140890).
func (e *StormError) WatchListCut() bool {
	for _, r := range e.Storms {
		if r.EndedBeforeInitialEventsEnd > 0 {
			return true
		}
	}
	return false
}

// Replay runs the same reference client against a reproducer, replayed
// verbatim with no plan. It records what it was sent to out. The traffic
// equals the reproducer's when the reproducer replays the same.
func Replay(ctx context.Context, files []*cassette.File, out string, o Options) (Result, error) {
	v, err := verbatim.New(files...)
	if err != nil {
		return Result{}, err
	}
	seen := map[string]bool{}
	var resources []string
	for _, f := range files {
		for _, i := range f.Interactions {
			u, err := url.Parse(i.URL)
			if err != nil {
				continue // verbatim.New has refused such a file already
			}
			if q, ok, err := history.ParseRequestInfo(u); ok && err == nil && !seen[q.Resource.Name()] {
				seen[q.Resource.Name()] = true
				resources = append(resources, q.Resource.Name())
			}
		}
	}
	return record(ctx, v, resources, out, o, stormWatch{})
}

// target is a replay a reference client can run against.
type target interface {
	Transport() http.RoundTripper
	Exhausted() bool
}

// record runs the reference client against t until the replay is
// exhausted and quiet. It records what it was sent to out, with the
// recorder options given. A storm sw reports ends it. On failure it
// removes the files it wrote.
func record(ctx context.Context, t target, resources []string, out string, o Options, sw stormWatch, ropts ...recorder.Option) (Result, error) {
	o = o.withDefaults()
	stg, err := newStage(out)
	if err != nil {
		return Result{}, err
	}
	defer stg.discard()
	rec, err := recorder.New(stg.path(), append([]recorder.Option{recorder.WithFlushInterval(time.Hour)}, ropts...)...)
	if err != nil {
		return Result{}, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	settled := make(chan struct{})
	var quietSince time.Time
	var lastStats recorder.Stats
	var last capture.Progress // read once capture.Run has returned
	progress := func(p capture.Progress) {
		last = p
		synced := len(p.Resources) > 0
		for _, r := range p.Resources {
			synced = synced && r.Synced
		}
		busy := p.Stats.Events != lastStats.Events || p.Stats.Interactions != lastStats.Interactions || p.Stats.Watches != lastStats.Watches
		lastStats = p.Stats
		if !synced || !t.Exhausted() || busy {
			quietSince = time.Time{}
			return
		}
		if quietSince.IsZero() {
			quietSince = time.Now()
		}
		if time.Since(quietSince) >= o.Settle {
			select {
			case <-settled:
			default:
				close(settled)
			}
		}
	}
	cfg := &rest.Config{Host: "http://replay.invalid", Transport: t.Transport(), QPS: -1}
	done := make(chan error, 1)
	go func() {
		_, err := capture.Run(runCtx, capture.Config{
			RestConfig: cfg, Resources: resources, WatchList: o.WatchList, Recorder: rec,
			Progress: progress, ProgressInterval: o.Poll,
		})
		done <- err
	}()
	var runErr error
	stormed, late := false, false
	timeout := time.NewTimer(o.Timeout)
	defer timeout.Stop()
	select {
	case <-settled:
	case <-timeout.C:
		late = true // told once the client has stopped
	case <-ctx.Done():
		runErr = ctx.Err()
	case <-sw.stormed:
		stormed = true // told once the client has stopped
	case err := <-done:
		done <- err // for the wait below
		runErr = errors.New("the reference client stopped early")
	}
	cancel()
	if err := <-done; err != nil {
		runErr = errors.Join(runErr, err)
	}
	if stormed {
		runErr = errors.Join(&StormError{Storms: sw.storms()}, runErr)
	}
	if late {
		runErr = errors.Join(fmt.Errorf("%w within %s: %s", ErrNotSettled, o.Timeout, unsettled(last, t.Exhausted())), runErr)
	}
	closeErr := rec.Close()
	st := rec.Stats()
	if err := errors.Join(runErr, closeErr); err != nil {
		return Result{Interactions: st.Interactions}, err
	}
	files, err := stg.commit(st.Files)
	if err != nil {
		return Result{Interactions: st.Interactions}, err
	}
	return Result{Files: files, Interactions: st.Interactions}, nil
}

// unsettled tells where the reference client was when it had not settled.
// Per resource it tells whether it synced, its newest resourceVersion and
// last error. It tells whether the replay was served to its end.
func unsettled(p capture.Progress, exhausted bool) string {
	var parts []string
	for _, r := range p.Resources {
		s := r.Target.String() + ": "
		if r.Synced {
			s += "synced"
		} else {
			s += "not synced"
		}
		if r.LastSyncRV != "" {
			s += " at rv " + r.LastSyncRV
		}
		if r.LastError != "" {
			s += ", last error: " + r.LastError
		}
		parts = append(parts, s)
	}
	if exhausted {
		parts = append(parts, "the replay was served to its end")
	} else {
		parts = append(parts, "the replay was not served to its end")
	}
	return strings.Join(parts, "; ")
}

// removeAll removes files a failed run wrote: no partial reproducer is
// left.
func removeAll(files []string) error {
	var errs []error
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove partial reproducer: %w", err))
		}
	}
	return errors.Join(errs...)
}
