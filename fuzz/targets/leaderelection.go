package targets

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// The leader-election target's election: client-go's usual timings
// (leaderelection.go, LeaderElectionConfig: "Core clients default this
// value to 15 seconds", "... to 10 seconds", "... to 2 seconds"), in
// virtual time.
const (
	leaseNamespace = "kube-system"
	leaseName      = "lwreplay-target"
	leaseDuration  = 15 * time.Second
	renewDeadline  = 10 * time.Second
	retryPeriod    = 2 * time.Second
	// candidates is how many candidates run, each started stagger after the
	// one before. The first to try creates the lease. Which one that is does
	// not depend on how the goroutines are scheduled.
	candidates = 2
	stagger    = 500 * time.Millisecond
)

// leaderHooks are the bugs a test plants in the leader-election target
// (zero: none).
type leaderHooks struct {
	// lease names candidate i's lease (nil: leaseName for all).
	lease func(i int) string
	// fail, when set, says whether candidate i's lock request at at fails
	// before it is sent (a server it cannot reach), with what error.
	fail func(i int, at time.Duration) error
	// stay plants a candidate that goes on calling itself leader once its
	// elector has stopped leading. No OnStoppedLeading is recorded, and it
	// does not start again.
	stay bool
	// busy, when set, runs beside the candidates (a test's requests that
	// keep the run from ending early).
	busy func(ctx context.Context, cs kubernetes.Interface)
}

// runLeaderElection runs the leader-election target.
func runLeaderElection(ctx context.Context, env *harness.Env) error {
	return leaderElection(ctx, env, leaderHooks{})
}

// leaderElection runs candidates LeaderElectors on one Lease of
// leaseNamespace. Each has a resourcelock.LeaseLock of its own identity on
// env.Clientset. Beside them runs a SharedIndexInformer of env.Resource
// whose handler is the probe's. controller-runtime runs its caches on
// every replica and gates the leader's runnables only.
//
// What each candidate's callbacks are told and each request of its lock
// are recorded in an oracle.Leadership, exposed. ReleaseOnCancel is false,
// as controller-runtime's default. Its LeaderElectionReleaseOnCancel
// option says: "This requires the binary to immediately end when the
// Manager is stopped, otherwise, this setting is unsafe".
//
// A candidate whose elector stopped leading starts again as a fresh
// process does, with a new identity. (controller-runtime's is the hostname
// and a UUID.) It waits out the lease like any other. Identities are drawn
// from math/rand, which the run seeds.
func leaderElection(ctx context.Context, env *harness.Env, hooks leaderHooks) error {
	cs, err := env.Clientset()
	if err != nil {
		return err
	}
	inf, err := recordingInformer(env, 0)
	if err != nil {
		return err
	}
	tl := oracle.NewLeadership(leaseNamespace+"/"+leaseName, env.Probe.Elapsed(), leaseDuration, renewDeadline, retryPeriod,
		leaderelection.JitterFactor, false)
	env.Probe.Expose(tl)
	env.Probe.SetSettled(func() bool { return electionSettled(tl.Events()) })
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { inf.RunWithContext(ctx) })
	if hooks.busy != nil {
		wg.Go(func() { hooks.busy(ctx, cs) })
	}
	for i := range candidates {
		wg.Go(func() {
			if sleep(ctx, time.Duration(i)*stagger); ctx.Err() != nil {
				return
			}
			for ctx.Err() == nil {
				led, err := runCandidate(ctx, env, cs, tl, i, hooks)
				if err != nil {
					env.Probe.Error(err)
					return
				}
				if !led || hooks.stay {
					return // Run returns unled only when ctx is done
				}
			}
		})
	}
	<-ctx.Done()
	tl.End(env.Probe.Elapsed())
	return nil
}

// electionSettled reports whether a candidate leads and its last request
// of the lock stored the lease. That is the end state a fault-free run
// reaches, which a run may end on (Probe.SetSettled). A run whose lock
// requests a fault refused has not settled until a candidate holds the
// lease again. The candidates retry every RetryPeriod, longer than the
// quiet second a run may end after.
func electionSettled(events []oracle.LeaderEvent) bool {
	leading := map[string]bool{}
	last := map[string]oracle.LeaderEventKind{} // each candidate's last lock request
	for _, e := range events {
		switch {
		case e.Kind == oracle.LeaderStarted:
			leading[e.Candidate] = true
		case e.Kind == oracle.LeaderStopped:
			delete(leading, e.Candidate)
		case e.Verb != "":
			last[e.Candidate] = e.Kind
		}
	}
	for c := range leading {
		if last[c] == oracle.LeaseWritten {
			return true
		}
	}
	return false
}

// runCandidate runs one LeaderElector of candidate i, a fresh identity,
// until its Run returns, and says whether it led.
func runCandidate(ctx context.Context, env *harness.Env, cs kubernetes.Interface, tl *oracle.Leadership, i int, hooks leaderHooks) (bool, error) {
	name := leaseName
	if hooks.lease != nil {
		name = hooks.lease(i)
	}
	id := fmt.Sprintf("%c_%08x", 'a'+i, rand.Uint32()) //nolint:gosec // an identity, seeded by the run
	lock := &recordingLock{
		inner: &resourcelock.LeaseLock{LeaseMeta: metav1.ObjectMeta{Namespace: leaseNamespace, Name: name},
			Client: cs.CoordinationV1(), LockConfig: resourcelock.ResourceLockConfig{Identity: id}},
		i: i, tl: tl, now: env.Probe.Elapsed, fail: hooks.fail,
	}
	var led atomic.Bool // OnStartedLeading runs on a goroutine of its own
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
		Name: name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) {
				led.Store(true)
				tl.Record(oracle.LeaderEvent{At: env.Probe.Elapsed(), Candidate: id, Kind: oracle.LeaderStarted})
			},
			OnStoppedLeading: func() {
				if !hooks.stay {
					tl.Record(oracle.LeaderEvent{At: env.Probe.Elapsed(), Candidate: id, Kind: oracle.LeaderStopped})
				}
			},
		},
	})
	if err != nil {
		return false, fmt.Errorf("%w: leader elector %s: %w", harness.ErrTarget, id, err)
	}
	le.Run(ctx)
	return led.Load(), nil
}

// recordingLock is a resourcelock.Interface that records each request of
// the lock it wraps to a Leadership.
type recordingLock struct {
	inner resourcelock.Interface
	i     int
	tl    *oracle.Leadership
	now   func() time.Duration
	fail  func(int, time.Duration) error
}

var _ resourcelock.Interface = (*recordingLock)(nil)

// record records the answer to a request of verb sent at sent.
func (l *recordingLock) record(verb string, sent time.Duration, kind oracle.LeaderEventKind, err error) {
	e := oracle.LeaderEvent{At: l.now(), Sent: sent, Candidate: l.Identity(), Kind: kind, Verb: verb}
	if err != nil {
		e.Kind, e.Err = oracle.LeaseFailed, err.Error()
		e.Conflict = apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
	}
	l.tl.Record(e)
}

// planted returns the planted failure of a request now, if any.
func (l *recordingLock) planted() error {
	if l.fail == nil {
		return nil
	}
	return l.fail(l.i, l.now())
}

// Get gets the lease's record; NotFound is an answer, not a failure.
func (l *recordingLock) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	sent := l.now()
	if err := l.planted(); err != nil {
		l.record("get", sent, "", err)
		return nil, nil, err
	}
	rec, raw, err := l.inner.Get(ctx)
	answer := err
	if apierrors.IsNotFound(err) {
		answer = nil // the lease is yet to be created
	}
	l.record("get", sent, oracle.LeaseRead, answer)
	return rec, raw, err
}

// Create creates the lease holding ler.
func (l *recordingLock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	sent := l.now()
	err := l.planted()
	if err == nil {
		err = l.inner.Create(ctx, ler)
	}
	l.record("create", sent, oracle.LeaseWritten, err)
	return err
}

// Update writes ler to the lease: a renewal or takeover, or a release
// (no holder).
func (l *recordingLock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	sent := l.now()
	err := l.planted()
	if err == nil {
		err = l.inner.Update(ctx, ler)
	}
	kind := oracle.LeaseWritten
	if ler.HolderIdentity == "" {
		kind = oracle.LeaseReleased
	}
	l.record("update", sent, kind, err)
	return err
}

// RecordEvent records nothing: the candidates have no event recorder.
func (l *recordingLock) RecordEvent(s string) { l.inner.RecordEvent(s) }

// Identity returns the candidate's identity.
func (l *recordingLock) Identity() string { return l.inner.Identity() }

// Describe describes the wrapped lock.
func (l *recordingLock) Describe() string { return l.inner.Describe() }
