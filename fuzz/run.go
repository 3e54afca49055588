package fuzz

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
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

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/recorder"
	"github.com/lwreplay/lwreplay/replayer"
)

// ConfigMaps is the resource RunOnce watches: core v1 configmaps.
var ConfigMaps = history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// Watchdog is the longest a run lasts, in virtual time: longer than
// client-go's longest watch timeout (10 min) and a relist's backoff. A run
// ends sooner once the replay is exhausted, the plan can fire no more, and
// the target has synced and its store holds the truth's final state.
const Watchdog = 15 * time.Minute

// Tick is how often, in virtual time, a run looks at the target's state
// while the target is busy.
const Tick = 100 * time.Millisecond

// MaxTick is the longest a run goes, in virtual time, without looking at
// the target's state, once nothing has changed for a while.
const MaxTick = 30 * time.Second

// replayHost is the host a target's client is pointed at; the transport
// never dials it.
const replayHost = "http://replay.invalid"

// Spec says what one run replays and what it runs.
type Spec struct {
	// History is the recorded history to replay.
	History *history.History
	// Resource is the resource the target watches; zero means ConfigMaps.
	Resource history.Resource
	// Plan is the fault plan the replayer acts out.
	Plan faults.Plan
	// Target is the client-go code to run.
	Target Target
	// WatchList is the client path: true, WatchList; false, LIST+WATCH.
	WatchList bool
	// Level is how the target's ListerWatcher reaches the replay.
	Level Level
	// Reproducer, when set, holds a reproducer's files (every interaction
	// marked verbatim): the run replays them as recorded, in order, with
	// no plan, and History is the history they build.
	Reproducer []*cassette.File

	decoded  *decoded // decoded answers shared by runs of one history
	recordTo string   // when set, the target's traffic is recorded there
}

// replay is the server side of a run: the model apiserver or a
// reproducer's verbatim answers.
type replay interface {
	Transport() http.RoundTripper
	FiredCount() int
	Fired() []faults.Firing
	Truth() *history.History
	ExhaustedOf(res history.Resource) bool
	Spent() bool
}

// verbatimReplay replays a reproducer; its truth is the history the
// reproducer builds, and no fault fires.
type verbatimReplay struct {
	*replayer.Verbatim
	truth *history.History
}

func (v verbatimReplay) FiredCount() int         { return 0 }
func (v verbatimReplay) Fired() []faults.Firing  { return nil }
func (v verbatimReplay) Truth() *history.History { return v.truth }
func (v verbatimReplay) Spent() bool             { return true }

// ExhaustedOf reports whether every recorded answer has been given.
func (v verbatimReplay) ExhaustedOf(history.Resource) bool { return v.Exhausted() }

// newReplay returns the replay s asks for.
func newReplay(s Spec) (replay, error) {
	if s.Reproducer == nil {
		return replayer.New(s.History, replayer.WithPlan(s.Plan)), nil
	}
	v, err := replayer.NewVerbatim(s.Reproducer...)
	if err != nil {
		return nil, err
	}
	return verbatimReplay{Verbatim: v, truth: s.History}, nil
}

// Replay runs s.Target against a replay of s.History perturbed by s.Plan,
// inside a testing/synctest bubble, and returns what it observed. The run
// lasts until the target has caught up with an exhausted replay, or
// Watchdog in virtual time, which costs real time only for what the
// target and the replayer compute.
func Replay(t *testing.T, s Spec) *Observation {
	t.Helper()
	defer QuietClientGo()()
	if s.Resource == (history.Resource{}) {
		s.Resource = ConfigMaps
	}
	var obs *Observation
	var bubble string
	func() {
		defer func() {
			p := recover()
			switch {
			case p == nil:
			case isLeftGoroutines(p) && obs != nil:
				obs.LeftGoroutines, obs.LeftStack = leftIn(bubble)
			default:
				panic(p)
			}
		}()
		synctest.Test(t, func(t *testing.T) {
			bubble = bubbleID()
			obs = runInBubble(t, s)
		})
	}()
	return obs
}

// quiet holds what QuietClientGo changed, while any caller holds it.
var quiet struct {
	sync.Mutex
	holders  int
	handlers []utilruntime.ErrorHandler
	klog     map[string]string
}

// klogFlags are the klog settings QuietClientGo changes, with the values
// it sets.
var klogFlags = map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"}

// QuietClientGo silences client-go's logging and turns off apimachinery's
// error handlers until every caller has called the restore func it
// returns (a test binary that never does stays quiet). The handlers must
// go: HandleError sleeps until a minimum period has passed since a time
// taken at package init, and inside a synctest bubble, whose clock starts
// in 2000, the first error would freeze the reflector for decades of
// virtual time. Replay holds it for each run.
func QuietClientGo() (restore func()) {
	quiet.Lock()
	defer quiet.Unlock()
	if quiet.holders == 0 {
		quiet.handlers = utilruntime.ErrorHandlers
		utilruntime.ErrorHandlers = nil
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		quiet.klog = map[string]string{}
		for name, v := range klogFlags {
			if f := fs.Lookup(name); f != nil {
				quiet.klog[name] = f.Value.String()
				_ = f.Value.Set(v)
			}
		}
		klog.SetOutput(io.Discard)
	}
	quiet.holders++
	var once sync.Once
	return func() { once.Do(unquiet) }
}

// unquiet gives up one hold of QuietClientGo, restoring client-go's
// settings with the last.
func unquiet() {
	quiet.Lock()
	defer quiet.Unlock()
	quiet.holders--
	if quiet.holders > 0 {
		return
	}
	utilruntime.ErrorHandlers = quiet.handlers
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for name, v := range quiet.klog {
		_ = fs.Set(name, v)
	}
	klog.SetOutput(os.Stderr)
}

// storeSnapshot is the target's store, as key → resourceVersion, from a
// moment of the run on.
type storeSnapshot struct {
	at  time.Duration
	rvs map[string]string
}

// runInBubble is RunResource's body; it must run inside a synctest bubble.
func runInBubble(t *testing.T, s Spec) *Observation {
	t.Helper()
	srv, err := newReplay(s)
	if err != nil {
		t.Errorf("replay: got error %v, want none", err)
		return nil
	}
	transport := srv.Transport()
	if s.recordTo != "" {
		traffic, err := recorder.New(s.recordTo, recorder.WithFlushInterval(time.Hour))
		if err != nil {
			t.Errorf("record %s: got error %v, want none", s.recordTo, err)
			return nil
		}
		defer func() {
			if err := traffic.Close(); err != nil {
				t.Errorf("record %s: close: got error %v, want none", s.recordTo, err)
			}
		}()
		transport = traffic.Wrap(transport)
	}
	start := time.Now()
	rec := newRecorder(start, s.WatchList)
	if s.decoded != nil && s.Level == Typed {
		rec.known = s.decoded.known
	}
	env := &Env{
		Config:    &rest.Config{Host: replayHost, Transport: transport},
		Resource:  s.Resource,
		Recorder:  rec,
		WatchList: s.WatchList,
		Level:     s.Level,
		decoded:   s.decoded,
	}
	res, target := s.Resource, s.Target
	obs := &Observation{Resource: res, SyncedAt: -1, LastFaultAt: -1, ConvergedAt: -1}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan struct{})
	var runErr error
	var runPanic any
	go func() {
		defer close(done)
		defer func() { runPanic = recover() }()
		runErr = target.Run(ctx, env)
	}()

	// The truth can change during the run (a recreate fault adds events
	// when it fires): its final state is taken anew when it does.
	var truthSeen *history.History
	final := map[string]string{}
	finalState := func() map[string]string {
		if h := srv.Truth(); h != truthSeen {
			truthSeen, final = h, finalRVs(h, res)
		}
		return final
	}
	fired, delivered := 0, 0
	var snaps []storeSnapshot
	step := Tick
	for time.Since(start) <= Watchdog {
		synctest.Wait()
		now := time.Since(start)
		changed := false
		if obs.SyncedAt < 0 && rec.HasSynced() {
			obs.SyncedAt = now
			changed = true
		}
		if n := srv.FiredCount(); n > fired {
			fired = n
			obs.LastFaultAt = now
			changed = true
		}
		// A target that reports its deliveries changes its store only with
		// one (every goroutine is blocked here, so every notification of a
		// change has been made); one that does not is looked at each time.
		n := rec.deliveryCount()
		if n != delivered || n == 0 {
			if rvs, err := rec.storeRVs(); err == nil && (len(snaps) == 0 || !maps.Equal(snaps[len(snaps)-1].rvs, rvs)) {
				snaps = append(snaps, storeSnapshot{at: now, rvs: rvs})
				changed = true
			}
		}
		if n != delivered {
			delivered = n
			changed = true
		}
		if obs.SyncedAt >= 0 && len(snaps) > 0 && maps.Equal(snaps[len(snaps)-1].rvs, finalState()) && srv.ExhaustedOf(res) && srv.Spent() {
			obs.EndedEarly = true
			break
		}
		// Look often while the target is busy, and ever less often while
		// nothing happens: a quiet run costs tens of looks, not thousands.
		if changed {
			step = Tick
		} else {
			step = min(2*step, MaxTick)
		}
		time.Sleep(min(step, Watchdog-now+Tick))
	}
	synctest.Wait()
	store, err := rec.storeAgainst(finalObjects(srv.Truth(), res))
	if err != nil {
		t.Errorf("target %s store: got error %v, want none", target.Name, err)
	}
	obs.Store = store
	cancel()
	select {
	case <-done:
		// Give the goroutines the target started (and the replayer's) a
		// moment of virtual time to end; those still blocked after it are
		// left over, and counted when the bubble ends.
		time.Sleep(stopGrace)
		if runPanic != nil {
			obs.Panics = append(obs.Panics, fmt.Sprint(runPanic))
		}
		if runErr != nil && !errors.Is(runErr, context.Canceled) {
			t.Errorf("target %s: got error %v, want none", target.Name, runErr)
		}
	case <-time.After(stopGrace):
		obs.NotStopped = true
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
	rec.mu.Lock()
	obs.Panics = append(obs.Panics, rec.panics...)
	obs.Exposed = rec.exposed
	rec.mu.Unlock()
	obs.EndedAt = time.Since(start)
	final = finalState()
	// Converged at the start of the final stretch in which the store
	// equals the truth's final state.
	for i := len(snaps) - 1; i >= 0 && maps.Equal(snaps[i].rvs, final); i-- {
		obs.ConvergedAt = snaps[i].at
	}
	return obs
}

// finalCache holds each log's final state.
var finalCache weakCache[history.Log, map[string]string]

// finalRVs returns the final state of h's log of res, as key →
// resourceVersion (shared: not to be changed).
func finalRVs(h *history.History, res history.Resource) map[string]string {
	l, ok := h.Log(res)
	if !ok {
		return map[string]string{}
	}
	return finalCache.get(l, finalOf)
}

// finalObjectsCache holds each log's final objects by key.
var finalObjectsCache weakCache[history.Log, map[string]*history.Object]

// finalObjects returns the final state of h's log of res by key (shared:
// not to be changed).
func finalObjects(h *history.History, res history.Resource) map[string]*history.Object {
	l, ok := h.Log(res)
	if !ok {
		return nil
	}
	return finalObjectsCache.get(l, func(l *history.Log) map[string]*history.Object {
		out := map[string]*history.Object{}
		for _, o := range l.StateAt(l.End()) {
			out[o.Key()] = o
		}
		return out
	})
}

// finalOf computes l's final state as key → resourceVersion.
func finalOf(l *history.Log) map[string]string {
	out := map[string]string{}
	for _, o := range l.StateAt(l.End()) {
		out[o.Key()] = o.ResourceVersion
	}
	return out
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
	panics     []string
	exposed    any
	// known returns the history object of a stored object the typed level
	// decoded and shared (nil: none is known).
	known func(any) (*history.Object, bool)
}

// Expose hands v (say, the target's own cache) to the run's Observation,
// for user invariants to judge.
func (r *Recorder) Expose(v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exposed = v
}

// Panic records a panic the target recovered in one of its own handlers,
// for the clean-stop invariant (a handler panic in client-go's goroutines
// would otherwise end the process).
func (r *Recorder) Panic(v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.panics = append(r.panics, fmt.Sprint(v))
}

func newRecorder(start time.Time, watchList bool) *Recorder {
	return &Recorder{start: start, watchList: watchList, deliveries: make([]Delivery, 0, 256)}
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

// deliveryCount returns how many deliveries there were so far.
func (r *Recorder) deliveryCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.deliveries)
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
	return r.storeAgainst(nil)
}

// storeAgainst is Store, where a stored unstructured object equal to
// want's object of its key (same resourceVersion, same content) is given
// as want's object itself: comparing is cheaper than encoding.
func (r *Recorder) storeAgainst(want map[string]*history.Object) (map[string]*history.Object, error) {
	r.mu.Lock()
	fn := r.store
	r.mu.Unlock()
	if fn == nil {
		return nil, nil
	}
	out := map[string]*history.Object{}
	for _, obj := range fn() {
		if r.known != nil {
			if o, ok := r.known(obj); ok {
				out[o.Key()] = o
				continue
			}
		}
		if w, ok := sameAsWanted(obj, want); ok {
			out[w.Key()] = w
			continue
		}
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
