package replayer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/replayer/internal/inproc"
)

// PaceMode says how fast recorded events become available.
type PaceMode int

const (
	// PaceMax serves every event at once: no waits (the default).
	PaceMax PaceMode = iota
	// PaceRecorded serves events at their recorded offsets, scaled by a
	// factor.
	PaceRecorded
)

// String returns "max" or "recorded".
func (m PaceMode) String() string {
	switch m {
	case PaceMax:
		return "max"
	case PaceRecorded:
		return "recorded"
	}
	return fmt.Sprintf("PaceMode(%d)", int(m))
}

// Pace is how fast recorded time passes on replay.
type Pace struct {
	// Mode is max or recorded.
	Mode PaceMode
	// Factor speeds recorded time up (2: twice as fast); 0 means 1.
	Factor float64
}

func (p Pace) factor() float64 {
	if p.Factor <= 0 {
		return 1
	}
	return p.Factor
}

// String renders the pace as ParsePace reads it.
func (p Pace) String() string {
	if p.Mode == PaceMax {
		return "max"
	}
	if p.factor() == 1 {
		return "recorded"
	}
	return strconv.FormatFloat(p.factor(), 'g', -1, 64) + "x"
}

// ParsePace reads "max", "recorded" or a speed factor such as "10x" or "0.5x"
// (positive and finite).
func ParsePace(s string) (Pace, error) {
	switch s {
	case "max", "":
		return Pace{Mode: PaceMax}, nil
	case "recorded":
		return Pace{Mode: PaceRecorded, Factor: 1}, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "x"), 64)
	if err != nil || !strings.HasSuffix(s, "x") || !(f > 0) || math.IsInf(f, 0) {
		return Pace{}, fmt.Errorf("pace %q: want max, recorded or a positive factor such as 10x", s)
	}
	return Pace{Mode: PaceRecorded, Factor: f}, nil
}

// Option configures a Server.
type Option func(*options)

type options struct {
	pace             Pace
	compaction       string // "" means each log's start
	bookmarkInterval time.Duration
	watchTimeout     time.Duration
	tooLargeWait     time.Duration
	gitVersion       string
	noWatchCache     bool
	maxWatchTimeout  time.Duration // 0: no cap
	latency          time.Duration // before Transport hands a request to the server (see WithLatency)
	plan             *faults.Plan  // nil: no plan
	readOnly         bool          // writes answered 405 (see WithReadOnly)
	hooks            Hooks         // the run's hooks (see WithHooks)

	storm       bool // storm detection (see WithStormDetection)
	stormWindow time.Duration
	stormLimit  int
	onStorm     func(StormReport)

	faultsOnActors bool                    // the plan acts on the actors' requests too (see WithFaultsOnActors)
	noGC           bool                    // the replay's garbage-collector model is off (see WithoutGC)
	graceful       bool                    // a pod's DELETE is graceful (see WithGracefulDeletion)
	defaulter      runtime.ObjectDefaulter // kube-apiserver's defaulting of built-in kinds (see WithDefaulter)
	writeReuse     bool                    // writes reuse the field manager's answers (see WithWriteReuse)
}

func defaults() options {
	return options{
		pace:             Pace{Mode: PaceMax},
		bookmarkInterval: time.Minute,      // kube-apiserver's defaultBookmarkFrequency
		watchTimeout:     30 * time.Minute, // kube-apiserver's --min-request-timeout
		tooLargeWait:     3 * time.Second,  // kube-apiserver waits this long before a 504
		gitVersion:       "v1.37.2",
		latency:          DefaultLatency,
	}
}

// WithWriteReuse makes a non-apply write reuse the field manager's answer
// to the same request on the same stored object, held from an earlier
// write in the process (writes.RawState): a fuzzing campaign makes the
// same writes run after run. Answers are those of a write without it; a
// write that repeats none pays a copy of its object to hold. Off by
// default.
func WithWriteReuse() Option { return func(o *options) { o.writeReuse = true } }

// DefaultLatency is the virtual latency of every request made through
// Transport unless WithLatency says otherwise: 1 ms, as a real
// kube-apiserver answers in milliseconds.
const DefaultLatency = inproc.DefaultLatency

// WithLatency sets how long each request made through Transport takes to
// reach the server (0: none; default DefaultLatency). Inside a
// testing/synctest bubble it is virtual time. The clock a client reads
// after a request has moved on by it, as on a real cluster. So the
// timestamps it writes differ from one request to the next (an Event's
// name, <object>.<hex of time.Now().UnixNano()>). It does not touch
// requests served over HTTP (Serve), which take the network's own time.
func WithLatency(d time.Duration) Option { return func(o *options) { o.latency = max(d, 0) } }

// WithPace sets how fast recorded events become available.
func WithPace(p Pace) Option { return func(o *options) { o.pace = p } }

// WithCompaction sets the compaction point: requests for an older
// resourceVersion or continue token are answered 410 Expired. By default
// it is each resource's first recorded resourceVersion. Under a fault
// plan it only moves forward. A fault's 410 Expired (expire-watch,
// expire-continue, recreate) moves it past the resourceVersion refused,
// for the rest of the run.
func WithCompaction(rv string) Option { return func(o *options) { o.compaction = rv } }

// WithBookmarkInterval sets how often a watch that allows bookmarks gets
// one (kube-apiserver: every minute, and 2 s before its timeout).
func WithBookmarkInterval(d time.Duration) Option { return func(o *options) { o.bookmarkInterval = d } }

// WithWatchTimeout sets the timeout of a watch that asks for none.
func WithWatchTimeout(d time.Duration) Option { return func(o *options) { o.watchTimeout = d } }

// WithMaxWatchTimeout caps every watch's timeout at d (0: no cap). A
// watch asking for a longer timeoutSeconds is ended cleanly after d, with
// its bookmark 2 s before. So may a server closing watches early; a
// client re-watches from its last resourceVersion. Clients pick their
// timeout at random (client-go: 5 to 10 minutes). Take a cap no longer
// than the shortest they pick. Then when a watch ends, and how many
// bookmarks it carries, no longer depend on that draw. So the same
// requests get the same answers run after run.
func WithMaxWatchTimeout(d time.Duration) Option { return func(o *options) { o.maxWatchTimeout = d } }

// WithoutWatchCache answers as kube-apiserver with --watch-cache=false
// does. A LIST at resourceVersion "0" is read from storage. So it honours
// limit and is paginated (the watch cache ignores limit for it).
func WithoutWatchCache() Option { return func(o *options) { o.noWatchCache = true } }

// WithReadOnly answers every write 405 MethodNotAllowed, as the replayer
// did before it took writes: for a replay that must stay what was
// recorded.
func WithReadOnly() Option { return func(o *options) { o.readOnly = true } }

// WithVersion sets the gitVersion /version reports.
func WithVersion(v string) Option { return func(o *options) { o.gitVersion = v } }
