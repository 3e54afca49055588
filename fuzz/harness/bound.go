package harness

import (
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/internal/site"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// The bounds of no-hot-loop: a rate, never a count per run. A run under a
// persistent fault lasts 35 minutes of virtual time. A polite client makes
// more requests in it than in one of 15 minutes.
//
// The clients of client-go pace themselves:
//   - the reflector backs off 0.8 s doubling to 30 s between attempts while
//     it makes no progress;
//   - its REST client retries one request at most 10 times a second apart;
//   - it re-watches at once only after a stream that brought events or ran
//     its course.
//
// So while failing it makes about one request a second. A client that
// waits a second before each relist makes two.
const (
	// defaultBurst is how many requests a run's target may make within
	// hotWindow when Options.MaxBurst does not say. A loop that does not block
	// crosses it at once: virtual time stands still while it spins.
	defaultBurst = 200
	// hotWindow is the window of virtual time a burst is counted in.
	hotWindow = time.Second
	// defaultRate is the most requests per second of virtual time a run's
	// target may sustain over sustainedWindow when Options.MaxRate does not
	// say. It is ten times what client-go does while failing, five times a
	// client that relists every second. A loop that sleeps a few milliseconds
	// between requests crosses it within seconds.
	defaultRate = 10
	// sustainedWindow is the window of virtual time a sustained rate is
	// measured over.
	sustainedWindow = time.Minute
	// perCollected is how many of the requests within sustainedWindow each
	// of the target's objects the replay's garbage collector deleted in it
	// answers. A controller whose cache still holds an owner the collector saw
	// gone (a fault keeps its watch behind) makes the child again each time
	// the collector deletes it. That costs a read, a create and a status update
	// a round. A real cluster's collector answers within milliseconds.
	// A sustained rate those deletes account for still ends the run, since it
	// would last as long as the fault. But HotLoop.Answering says so, and
	// no-hot-loop does not judge it. A loop that retries without them is
	// judged, and so is every burst.
	perCollected = 10
)

// errRequestBound is what a request past the run's bound gets, once the
// run is over.
var errRequestBound = errors.New("lwreplay: the run's request bound was reached")

// requestBound logs a target's requests and holds every request past the
// bound until the run ends. Virtual time stands still while a goroutine
// loops without blocking. So a target that reconnects in a loop would keep
// a run from ever ending. The request that crosses the bound records its
// goroutine's stack and blocks: time moves again, and the run ends, judged
// by no-hot-loop.
//
// It is the run's one way to end at its first broken behaviour bound.
// The write bounds trip it too: no-write-storm, no-conflict-loop and
// no-create-loop, counted by oracle.WriteBounds on the replay's answers as
// they come. The run ends there, its report complete, instead of writing
// on until the watchdog.
type requestBound struct {
	next      http.RoundTripper
	burst     int
	sustained int // requests allowed within sustainedWindow
	start     time.Time
	stop      <-chan struct{} // closed when the run ends

	// collected, when set, counts the target's objects the replay's
	// garbage collector deleted so far (replayer.Server.Collected).
	collected func() int
	// writes, when set, returns the replay's answers to the target's
	// writes from the i-th on (replayer.Server.WritesFrom).
	writes func(i int) []history.WriteAnswer
	// onTrip, when set, is called when a bound is first crossed (b.mu held; it
	// must not block). It wakes the run, which ends at its next look.
	onTrip func()

	mu        sync.Mutex
	log       []observe.Request
	gcAt      []int         // gcAt[i]: collected() when log[i] was sent
	minute    int           // index of the first request of log within sustainedWindow of the last
	lastWrite time.Duration // when the target sent its last write; -1: none yet
	trip      string        // the stack of the goroutine that crossed the request bound
	trippedAt time.Duration
	tripWhy   string
	tripBound string // the invariant whose bound was crossed first; "" while none was
	answering int    // the garbage collector's deletes in the window, when they account for a sustained rate
	fed       int    // the writes fed to wb
	wb        oracle.WriteBounds
}

// newRequestBound wraps next with a bound that holds requests past it
// until stop is closed. The bound is burst requests within a second of
// virtual time and rate requests a second sustained over a minute (0: the
// defaults).
func newRequestBound(next http.RoundTripper, burst, rate int, start time.Time, stop <-chan struct{}) *requestBound {
	if burst <= 0 {
		burst = defaultBurst
	}
	if rate <= 0 {
		rate = defaultRate
	}
	return &requestBound{next: next, burst: burst, sustained: rate * int(sustainedWindow/time.Second), start: start, stop: stop,
		log: make([]observe.Request, 0, 64), lastWrite: -1}
}

// freshInstance starts the sustained window afresh as a fresh instance of
// the target starts (after a crash, an exit or a stop). A rate is a
// process's own: its predecessors' requests are not its loop, as a real
// apiserver's clients are counted per process. Each instance lists,
// watches and reconciles once as it starts, so a fault that crashes the
// target at every write would otherwise cross the rate with no loop in
// any instance. The burst bound still spans instances.
func (b *requestBound) freshInstance() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.minute = max(b.minute, len(b.log))
}

// requestOf describes req.
func requestOf(req *http.Request, at time.Duration) observe.Request {
	verb := "GET"
	if req.Method != "" && req.Method != http.MethodGet {
		verb = req.Method // a write: POST, PUT, PATCH or DELETE
	}
	r := observe.Request{At: at, Resource: req.URL.Path, Verb: verb}
	q, ok, err := history.ParseRequestInfo(req.URL)
	if !ok || err != nil {
		return r
	}
	r.Resource, r.RV, r.Continue = q.Resource.Name(), q.ResourceVersion, q.Continue != ""
	switch {
	case verb != "GET":
	case q.Name != "":
	case q.Watch && q.SendInitialEvents != nil && *q.SendInitialEvents:
		r.Verb = "WATCHLIST"
	case q.Watch:
		r.Verb = "WATCH"
	default:
		r.Verb = "LIST"
	}
	return r
}

// RoundTrip logs req and sends it on, or, past the bound, holds it until
// the run ends.
func (b *requestBound) RoundTrip(req *http.Request) (*http.Response, error) {
	now := time.Since(b.start)
	r := requestOf(req, now)
	r.Stack = site.Callers() // the stack walk outside the lock
	b.mu.Lock()
	over := b.tripBound != ""
	idx := len(b.log)
	if !over {
		b.log = append(b.log, r)
		if isWrite(req) {
			b.lastWrite = now
		}
		if b.collected != nil {
			b.gcAt = append(b.gcAt, b.collected())
		}
		n := len(b.log)
		for now-b.log[b.minute].At >= sustainedWindow {
			b.minute++
		}
		switch {
		case n > b.burst && now-b.log[n-1-b.burst].At < hotWindow:
			b.tripWhy = fmt.Sprintf("more than %d requests within %v of virtual time", b.burst, hotWindow)
		case n-b.minute > b.sustained:
			b.tripWhy = fmt.Sprintf("more than %d requests within %v of virtual time (%d a second sustained)",
				b.sustained, sustainedWindow, b.sustained/int(sustainedWindow/time.Second))
			if c := b.collectedInWindow(); n-b.minute <= perCollected*c {
				b.answering = c
			}
		}
		if b.tripWhy != "" {
			over, b.trip, b.trippedAt, b.tripBound = true, cleanStack(debug.Stack()), now, "no-hot-loop"
			b.wakeRun()
		}
	}
	b.mu.Unlock()
	if !over {
		resp, err := b.next.RoundTrip(req)
		b.mu.Lock()
		if err == nil && resp != nil {
			b.log[idx].Code = resp.StatusCode
		}
		if isWrite(req) {
			b.feedWrites() // a write answered: the write bounds count it at once
		}
		b.mu.Unlock()
		return resp, err
	}
	select {
	case <-b.stop:
	case <-req.Context().Done():
		<-b.stop // a loop that cancels and retries must not spin either
	}
	return nil, errRequestBound
}

// collectedInWindow is how many of the target's objects the garbage
// collector deleted from the first request within sustainedWindow of the
// last on (b.mu held).
func (b *requestBound) collectedInWindow() int {
	if len(b.gcAt) == 0 {
		return 0
	}
	return b.gcAt[len(b.gcAt)-1] - b.gcAt[b.minute]
}

// checkWrites counts the replay's answers to the target's writes since the
// last count with the write bounds. The first write that breaks one trips
// the bound, as a request past the request bound does.
func (b *requestBound) checkWrites() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.feedWrites()
}

// feedWrites is checkWrites with b.mu held.
func (b *requestBound) feedWrites() {
	if b.writes == nil || b.tripBound != "" {
		return
	}
	for _, w := range b.writes(b.fed) {
		b.fed++
		crossed := b.wb.Add(w)
		for _, name := range oracle.WriteBoundNames {
			if err := crossed[name]; err != nil {
				b.tripBound, b.tripWhy, b.trippedAt = name, err.Error(), w.At
				b.wakeRun()
				return
			}
		}
	}
}

// wakeRun tells the run a bound was crossed (b.mu held).
func (b *requestBound) wakeRun() {
	if b.onTrip != nil {
		b.onTrip()
	}
}

// lastAt returns when (virtual time since the start) the target sent its
// last request; 0 before any.
func (b *requestBound) lastAt() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.log) == 0 {
		return 0
	}
	return b.log[len(b.log)-1].At
}

// lastWriteAt returns when (virtual time since the start) the target sent
// its last write; -1 before any.
func (b *requestBound) lastWriteAt() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lastWrite
}

// isWrite reports whether req is a write: a method other than GET and HEAD.
func isWrite(req *http.Request) bool {
	return req.Method != "" && req.Method != http.MethodGet && req.Method != http.MethodHead
}

// tripped reports whether a behaviour bound was crossed: a request past
// the request bound, or a write past a write bound.
func (b *requestBound) tripped() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tripBound != ""
}

// report returns the requests the run saw. When a bound was crossed, it
// returns which (end) and, for the request bound, what the run saw of it
// (hot).
func (b *requestBound) report() (log []observe.Request, hot *observe.HotLoop, end *observe.BoundEnd) {
	b.mu.Lock()
	defer b.mu.Unlock()
	log = append([]observe.Request(nil), b.log...)
	if b.tripBound == "" {
		return log, nil, nil
	}
	end = &observe.BoundEnd{Invariant: b.tripBound, At: b.trippedAt}
	if b.tripBound == "no-hot-loop" {
		hot = &observe.HotLoop{Why: b.tripWhy, At: b.trippedAt, Stack: b.trip, Answering: b.answering}
	}
	return log, hot, end
}

// cleanStack keeps what a stack says the same in every run: each frame's
// function and file:line. It drops the goroutine's number, argument
// values, program-counter offsets, and the frames of the bound itself.
func cleanStack(raw []byte) string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		switch t := strings.TrimSpace(line); {
		case strings.HasPrefix(t, "goroutine "):
			continue
		case strings.HasPrefix(line, "\t"):
			if i := strings.LastIndex(t, " +0x"); i > 0 {
				t = t[:i]
			}
			out = append(out, "\t"+t)
		default:
			if i := strings.Index(t, " in goroutine "); i > 0 {
				t = t[:i]
			}
			if i := strings.LastIndex(t, "("); i > 0 && strings.HasSuffix(t, ")") {
				t = t[:i]
			}
			out = append(out, t)
		}
	}
	// drop debug.Stack and RoundTrip's own frames (function and file lines)
	for len(out) >= 2 && (strings.HasPrefix(out[0], "runtime/debug.Stack") || strings.Contains(out[0], "harness.(*requestBound)")) {
		out = out[2:]
	}
	return strings.Join(out, "\n")
}
