package targets

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// busyUntil keeps a run from ending early until until. It reads the lease
// every 500 ms of virtual time; a run ends once it was quiet for a second.
func busyUntil(until time.Duration) func(context.Context, kubernetes.Interface) {
	return func(ctx context.Context, cs kubernetes.Interface) {
		start := time.Now()
		for time.Since(start) < until && ctx.Err() == nil {
			_, _ = cs.CoordinationV1().Leases(leaseNamespace).Get(ctx, leaseName, metav1.GetOptions{})
			sleep(ctx, 500*time.Millisecond)
		}
	}
}

// refused fails candidate i's lock requests from from to to, as a server
// that refuses its connections.
func refused(i int, from, to time.Duration) func(int, time.Duration) error {
	return func(c int, at time.Duration) error {
		if c == i && at >= from && at < to {
			return fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED)
		}
		return nil
	}
}

// conflicts fails every write of a lock with 409 Conflict, as a lock that
// sends a resourceVersion it never read.
func conflicts(_ int, _ time.Duration) error {
	return apierrors.NewConflict(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, leaseName, errors.New("planted"))
}

// waitsOutLease checks a run whose leader crashed once: one leader, the
// fresh instance, at least a LeaseDuration after the crash.
func waitsOutLease(t *testing.T, obs *observe.Observation, tl *oracle.Leadership) {
	got := leaders(tl)
	if len(obs.Crashes) != 1 || len(got) != 1 || got[0].at < obs.Crashes[0]+leaseDuration {
		t.Errorf("crashes %v, leaders %v: want one crash, then one leader at least %v after it", obs.Crashes, got, leaseDuration)
	}
}

// leaderTarget is the leader-election target with hooks planted.
func leaderTarget(name string, hooks leaderHooks) harness.Target {
	return harness.Target{Name: name, Doc: "a planted leader election", Run: func(ctx context.Context, env *harness.Env) error {
		return leaderElection(ctx, env, hooks)
	}}
}

// latencySlack is how much later than the lease's timings say an election
// step may come. Each request takes the replay's latency (1 ms), as on a
// real cluster, and a step takes a few (a GET and a create to lead).
const latencySlack = 100 * time.Millisecond

func TestLeaderElectionPlanted(t *testing.T) {
	t.Parallel()
	h := testutil.MustHistory(t, testutil.Shipped(testutil.TargetCassette))
	long := busyUntil(60 * time.Second)
	tests := []struct {
		name   string
		target harness.Target
		plan   string
		want   []string // the invariants that fire; none for a clean twin
		// check, when set, looks at the run's timeline
		check func(t *testing.T, obs *observe.Observation, tl *oracle.Leadership)
	}{
		{name: "leader-election - clean, no fault - a leads, every invariant holds - pass",
			target: leaderTarget("leader-election", leaderHooks{}),
			check: func(t *testing.T, obs *observe.Observation, tl *oracle.Leadership) {
				if got := leaders(tl); len(got) != 1 || got[0].at > latencySlack {
					t.Errorf("leaders: got %v, want one, at 0s (within its requests' latency, %v)", got, latencySlack)
				}
			}},
		{name: "leader-election - clean, kept busy 60s - a leads throughout, every invariant holds - pass",
			target: leaderTarget("leader-election-busy", leaderHooks{busy: long}),
			check: func(t *testing.T, obs *observe.Observation, tl *oracle.Leadership) {
				if got := leaders(tl); len(got) != 1 || obs.EndedAt < 60*time.Second {
					t.Errorf("leaders: got %v, run ended at %v, want one leader, the run at least 60s", got, obs.EndedAt)
				}
			}},
		{name: "leader-election - clean, a's requests refused from 5s to 40s - a stops by 16s, b takes over after 15s, every invariant holds - pass",
			target: leaderTarget("leader-election-refused", leaderHooks{busy: long, fail: refused(0, 5*time.Second, 40*time.Second)}),
			check: func(t *testing.T, obs *observe.Observation, tl *oracle.Leadership) {
				got := leaders(tl)
				if len(got) < 2 || got[0].stop < 0 || got[0].stop > 16*time.Second+latencySlack || got[1].at < 19*time.Second || got[1].at > 30*time.Second {
					t.Errorf("leaders: got %v, want a from 0s to at most 16s (and its requests' latency, %v), then b from 19s to 30s", got, latencySlack)
				}
			}},
		{name: "leader-election - crash after the lease's create - the fresh instance waits out the lease, every invariant holds - pass",
			target: leaderTarget("leader-election-crash", leaderHooks{busy: long}), plan: "crash-after-write:write=1",
			check: waitsOutLease},
		{name: "leader-election - crash after a renewal - the fresh instance waits out the lease, every invariant holds - pass",
			target: leaderTarget("leader-election-crash", leaderHooks{busy: long}), plan: "crash-after-write:write=3",
			check: waitsOutLease},
		{name: "leader-election - the apiserver restarts at the informer's first watch, down 30s - no leader while it is down but the first renew deadline, a leader again once it is back, every invariant holds - pass",
			target: leaderTarget("leader-election-restart", leaderHooks{busy: long}), plan: "apiserver-restart:down=30,watch=1",
			check: func(t *testing.T, obs *observe.Observation, tl *oracle.Leadership) {
				got := leaders(tl)
				back := false
				for _, l := range got {
					if l.at < 30*time.Second && (l.stop < 0 || l.stop > 13*time.Second) {
						t.Errorf("leaders %v: got %s leading from %v to %v, want every leader from before the server is back (30s) stopped within its renew deadline (by 13s)", got, l.who, l.at, l.stop)
					}
					back = back || (l.at >= 30*time.Second && l.at <= 30*time.Second+leaseDuration+10*time.Second)
				}
				if !back {
					t.Errorf("leaders %v: got none from 30s to %v, want one once the server answers again", got, 30*time.Second+leaseDuration+10*time.Second)
				}
			}},
		{name: "leader-election - candidates on leases of other names - two leaders at once - fail",
			target: leaderTarget("leader-election-two-leases", leaderHooks{lease: func(i int) string { return fmt.Sprintf("%s-%d", leaseName, i) }}),
			want:   []string{"one-leader"}},
		{name: "leader-election - a leader that goes on leading once its renewals fail - fail",
			target: leaderTarget("leader-election-stays", leaderHooks{busy: long, stay: true, fail: refused(0, 5*time.Second, 40*time.Second)}),
			want:   []string{"one-leader", "leader-steps-down"}},
		{name: "leader-election - a broken lock whose every write is answered 409 Conflict - no leader in 60s - fail",
			target: leaderTarget("leader-election-conflicts", leaderHooks{busy: long, fail: conflicts}),
			want:   []string{"leader-elected"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := faults.ParseText(tc.plan)
			if err != nil {
				t.Fatalf("plan: got error %v, want none", err)
			}
			obs := harness.Observe(t, harness.Spec{History: h, Plan: plan, Target: tc.target})
			if tc.plan != "" && obs.LastFaultAt < 0 {
				t.Errorf("plan %q: got no fault fired, want it to fire", tc.plan)
			}
			tl, ok := obs.Exposed.(*oracle.Leadership)
			if !ok {
				t.Fatalf("exposed: got %T, want *oracle.Leadership", obs.Exposed)
			}
			var fired []string
			for name, err := range oracle.Judge(obs) {
				if err != nil && !errors.Is(err, oracle.ErrNotJudged) {
					fired = append(fired, name)
					t.Logf("%s: %v", name, err)
				}
			}
			sort.Strings(fired)
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if fmt.Sprint(fired) != fmt.Sprint(want) {
				t.Errorf("invariants that fired: got %v, want %v", fired, want)
			}
			if tc.check != nil {
				tc.check(t, obs, tl)
			}
			t.Logf("leaders %v; ended at %v, %d writes", leaders(tl), obs.EndedAt, len(obs.Writes))
		})
	}
}

// leader is one candidate's leadership in a timeline.
type leader struct {
	who      string
	at, stop time.Duration // stop -1: not stopped
}

func (l leader) String() string { return fmt.Sprintf("%s@%v-%v", l.who, l.at, l.stop) }

// leaders returns the leaderships of tl, in order.
func leaders(tl *oracle.Leadership) []leader {
	var out []leader
	open := map[string]int{}
	for _, e := range tl.Events() {
		switch e.Kind {
		case oracle.LeaderStarted:
			open[e.Candidate] = len(out)
			out = append(out, leader{who: e.Candidate, at: e.At, stop: -1})
		case oracle.LeaderStopped:
			if i, ok := open[e.Candidate]; ok {
				out[i].stop = e.At
			}
		}
	}
	return out
}
