package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
)

// ConfigMaps is the resource RunOnce watches: core v1 configmaps.
var ConfigMaps = history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// Settle is how long, in virtual time, a run lasts before the target is
// stopped: longer than client-go's longest watch timeout (10 min) and a
// relist's backoff, so that every run has re-watched at least once.
const Settle = 15 * time.Minute

// Tick is how often, in virtual time, a run looks at the target's state.
const Tick = 100 * time.Millisecond

// replayHost is the host a target's client is pointed at; the transport
// never dials it.
const replayHost = "http://replay.invalid"

// RunOnce runs target against a replay of h's configmaps perturbed by plan,
// inside a testing/synctest bubble, and returns what it observed. watchList
// picks the client path (WatchList on or off).
func RunOnce(t *testing.T, h *history.History, plan faults.Plan, target Target, watchList bool) *Observation {
	t.Helper()
	return RunResource(t, h, ConfigMaps, plan, target, watchList)
}

// RunResource is RunOnce for the resource res.
func RunResource(t *testing.T, h *history.History, res history.Resource, plan faults.Plan, target Target, watchList bool) *Observation {
	t.Helper()
	QuietClientGo()
	var obs *Observation
	synctest.Test(t, func(t *testing.T) {
		obs = runInBubble(t, h, res, plan, target, watchList)
	})
	return obs
}

var quietOnce sync.Once

// QuietClientGo silences client-go's logging and turns off apimachinery's
// error handlers: HandleError sleeps until a minimum period has passed
// since a time taken at package init, and inside a synctest bubble, whose
// clock starts in 2000, the first error would freeze the reflector for
// decades of virtual time.
func QuietClientGo() {
	quietOnce.Do(func() {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
		klog.SetOutput(io.Discard)
		utilruntime.ErrorHandlers = nil
	})
}

// storeSnapshot is the target's store, as key → resourceVersion, from a
// moment of the run on.
type storeSnapshot struct {
	at  time.Duration
	rvs map[string]string
}

// runInBubble is RunResource's body; it must run inside a synctest bubble.
func runInBubble(t *testing.T, h *history.History, res history.Resource, plan faults.Plan, target Target, watchList bool) *Observation {
	t.Helper()
	srv := replayer.New(h, replayer.WithPlan(plan))
	cfg := &rest.Config{Host: replayHost, Transport: srv.Transport()}
	start := time.Now()
	rec := newRecorder(start, watchList)
	obs := &Observation{Resource: res, SyncedAt: -1, LastFaultAt: -1, ConvergedAt: -1}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan struct{})
	var runErr error
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				obs.Panics = append(obs.Panics, fmt.Sprint(p))
			}
		}()
		runErr = target.Run(ctx, cfg, res, rec)
	}()

	fired := 0
	var snaps []storeSnapshot
	for elapsed := time.Duration(0); elapsed <= Settle; elapsed += Tick {
		synctest.Wait()
		now := time.Since(start)
		if obs.SyncedAt < 0 && rec.HasSynced() {
			obs.SyncedAt = now
		}
		if n := len(srv.Fired()); n > fired {
			fired = n
			obs.LastFaultAt = now
		}
		if rvs, err := rec.storeRVs(); err == nil && (len(snaps) == 0 || !maps.Equal(snaps[len(snaps)-1].rvs, rvs)) {
			snaps = append(snaps, storeSnapshot{at: now, rvs: rvs})
		}
		time.Sleep(Tick)
	}
	synctest.Wait()
	store, err := rec.Store()
	if err != nil {
		t.Errorf("target %s store: got error %v, want none", target.Name, err)
	}
	obs.Store = store
	cancel()
	<-done
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		t.Errorf("target %s: got error %v, want none", target.Name, runErr)
	}
	obs.Deliveries = rec.Deliveries()
	obs.Fired = srv.Fired()
	initial := map[string]bool{}
	for _, d := range obs.Deliveries {
		if !d.Synced {
			initial[d.Key] = true
		}
	}
	obs.InitialDelivered = len(initial)

	truth, ok := srv.Truth().Log(res)
	if !ok {
		t.Errorf("truth: got no log of %s, want one", res.Resource)
		return obs
	}
	obs.Truth = truth
	final := map[string]string{}
	for _, o := range truth.StateAt(truth.End()) {
		final[o.Key()] = o.ResourceVersion
	}
	for _, s := range snaps {
		if maps.Equal(s.rvs, final) {
			obs.ConvergedAt = s.at
			break
		}
	}
	return obs
}

// Recorder collects what a target's handler was told and gives the run a
// view of the target's store and sync state. It is safe for concurrent use.
type Recorder struct {
	start     time.Time
	watchList bool

	mu         sync.Mutex
	deliveries []Delivery
	synced     func() bool
	store      func() []any
}

func newRecorder(start time.Time, watchList bool) *Recorder {
	return &Recorder{start: start, watchList: watchList}
}

// WatchList says which client path the run asks for: true, a reflector
// that streams its initial list (WatchList); false, one that lists and
// then watches.
func (r *Recorder) WatchList() bool { return r.watchList }

// SetSynced registers the target's HasSynced.
func (r *Recorder) SetSynced(fn func() bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.synced = fn
}

// SetStore registers the target's store lister (a cache.Store's List).
func (r *Recorder) SetStore(fn func() []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.store = fn
}

// HasSynced calls the registered HasSynced (false when none is).
func (r *Recorder) HasSynced() bool {
	r.mu.Lock()
	fn := r.synced
	r.mu.Unlock()
	return fn != nil && fn()
}

// Add records an add of obj; synced says whether the target had reported
// HasSynced before it.
func (r *Recorder) Add(obj any, synced bool) { r.record(OpAdd, obj, synced) }

// Update records an update to obj.
func (r *Recorder) Update(obj any, synced bool) { r.record(OpUpdate, obj, synced) }

// Delete records a delete of obj; a cache.DeletedFinalStateUnknown is
// recorded as a tombstone.
func (r *Recorder) Delete(obj any, synced bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		dv := deliveryOf(OpTombstone, d.Obj)
		dv.Key = d.Key
		r.append(dv, synced)
		return
	}
	r.record(OpDelete, obj, synced)
}

func (r *Recorder) record(op Op, obj any, synced bool) {
	r.append(deliveryOf(op, obj), synced)
}

func (r *Recorder) append(d Delivery, synced bool) {
	d.At = time.Since(r.start)
	d.Synced = synced
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deliveries = append(r.deliveries, d)
}

// Deliveries returns the deliveries so far, in order.
func (r *Recorder) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.deliveries...)
}

// Store returns the target's store by key (nil when no store is
// registered).
func (r *Recorder) Store() (map[string]*history.Object, error) {
	r.mu.Lock()
	fn := r.store
	r.mu.Unlock()
	if fn == nil {
		return nil, nil
	}
	out := map[string]*history.Object{}
	for _, obj := range fn() {
		o, err := objectOf(obj)
		if err != nil {
			return nil, err
		}
		out[o.Key()] = o
	}
	return out, nil
}

// storeRVs returns the target's store as key → resourceVersion.
func (r *Recorder) storeRVs() (map[string]string, error) {
	r.mu.Lock()
	fn := r.store
	r.mu.Unlock()
	out := map[string]string{}
	if fn == nil {
		return out, nil
	}
	for _, obj := range fn() {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, fmt.Errorf("%w: %T", ErrNotAnObject, obj)
		}
		out[keyOf(m)] = m.GetResourceVersion()
	}
	return out, nil
}

// ErrNotAnObject is returned for a stored item with no object metadata.
var ErrNotAnObject = errors.New("not a Kubernetes object")

// deliveryOf describes obj (which may be nil or not an object).
func deliveryOf(op Op, obj any) Delivery {
	d := Delivery{Op: op}
	m, err := meta.Accessor(obj)
	if err != nil || m == nil {
		return d
	}
	d.Key = keyOf(m)
	d.RV = m.GetResourceVersion()
	d.UID = string(m.GetUID())
	d.Bookmark = m.GetName() == ""
	return d
}

func keyOf(m metav1.Object) string {
	if m.GetNamespace() == "" {
		return m.GetName()
	}
	return m.GetNamespace() + "/" + m.GetName()
}

// objectOf turns a stored object into a history object.
func objectOf(obj any) (*history.Object, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("%w: %T: %v", ErrNotAnObject, obj, err)
	}
	o, _, _, err := history.ParseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %T: %v", ErrNotAnObject, obj, err)
	}
	return o, nil
}
