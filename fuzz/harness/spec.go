package harness

import (
	"time"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
)

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
	// Gates are the client-go feature gates the run sets (nil: the
	// process's); runs with other gates wait for each other (see Gates).
	Gates Gates
	// Level is how the target's ListerWatcher reaches the replay.
	Level level.Level
	// LiveBound is how long after the last fault fired the target may take
	// to converge (the live invariant); zero means 10 minutes.
	LiveBound time.Duration
	// MaxBurst is the most requests the target may make within a second
	// of virtual time (the no-hot-loop invariant); zero means 200.
	MaxBurst int
	// MaxRate is the most requests a second the target may sustain over a
	// minute of virtual time (the no-hot-loop invariant); zero means 10.
	MaxRate int
	// Reproducer, when set, holds a reproducer's files (every interaction
	// marked verbatim). The run replays them as recorded, in order, with no
	// plan, and History is the history they build.
	Reproducer []*cassette.File
	// Cache, when set, holds decoded answers shared by the typed-level
	// runs of one history (nil: each run decodes afresh).
	Cache *level.Cache
	// RecordTo, when set, is a path the target's traffic is recorded to,
	// as a reproducer (every interaction marked verbatim).
	RecordTo string
	// Watchdog, when set, is the run's watchdog instead of 15 minutes
	// (tests of when a run ends).
	Watchdog time.Duration
	// SpinBound is how long, in real time, the run may go without a look
	// (every goroutine of its bubble blocked) before it is given up as
	// spinning (Observation.Spin, the no-spin invariant). Zero means
	// DefaultSpinBound. Once the target is stopped the bound is at most
	// StopSpinBound.
	SpinBound time.Duration
	// KnownSpins are the sites of known busy loops and deadlocks at stop
	// (fuzz.Known entries of no-spin: controller-runtime#3440's loop,
	// #3538's lock waits). A stopped run in one of them at two ticks of
	// the watcher, KnownSpinAfter past its last look, is given up then,
	// not at StopSpinBound or a second of lock waits. Its verdict is the
	// same known finding, sooner.
	KnownSpins []string
	// FullRun, when set, runs to the watchdog: the run does not end early
	// once the target has caught up and gone quiet. A controller may still
	// have a requeue due (KubeRay's RayCluster controller requeues every 5
	// minutes), which no request announces. A campaign reruns so an early
	// run whose end state broke an invariant (see fuzz.Outcome.Unconfirmed).
	FullRun bool
	// Deadline, when set, is the real time the run must end by: a fuzzing
	// worker's input budget. Past it the run ends at its next look, or is
	// left running DeadlineGrace later when no look comes. Either way its
	// observation is OutOfTime and judges nothing. Zero means none.
	Deadline time.Time
	// Pace is the pace the replay serves the history at; zero means
	// replayer.PaceMax (every recorded event has happened when the target
	// starts). Under replayer.PaceRecorded the recorded changes come at
	// their recorded offsets, in virtual time, so a writing target's
	// writes interleave with them: the other actors.
	Pace replayer.Pace
	// Latency is how long, in virtual time, each request of the target takes
	// to reach the replay (see Latency). Zero means replayer.DefaultLatency
	// (1 ms), negative none.
	Latency time.Duration
	// Actors are the cluster's own controllers the run starts beside the
	// target, in order, before it (package actor; the actors module's
	// actors.Registry().Lookup gives them). Their requests are theirs, not
	// the target's: no request bound, no write log, no fault (unless
	// FaultsOnActors). The replay serves History with the recorded objects
	// they take over handed to them (history.Takeover). It also serves it:
	//   - without its own garbage collector when one of them collects;
	//   - with pods' graceful deletion when one is a kubelet;
	//   - defaulting writes when one supplies Defaults.
	//
	// A reproducer runs none.
	Actors []actor.Actor
	// FaultsOnActors makes the plan act on the actors' requests too
	// (replayer.WithFaultsOnActors). A failed LIST or a closed watch of
	// kube-controller-manager is stale state for the target. Crashes and
	// restarts still strike the target only.
	FaultsOnActors bool
	// Seed, when not zero, is mixed into what seeds the run's randomness (see
	// seedClientGo). Two runs of one input with other seeds draw other
	// backoffs and timeouts.
	Seed uint64
}
