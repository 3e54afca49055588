package crtarget_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/fuzz/observe"
)

// leaseKey is the key of the lease the leader-election manager holds.
const leaseKey = "default/x"

// leaderTarget runs the annotator on a manager with leader election on (a
// coordination.k8s.io/v1 Lease, controller-runtime's default lock). It
// renews every retry period; 0 is controller-runtime's default, 2 s.
// Otherwise the renew deadline and lease duration are 2 and 4 times it.
func leaderTarget(retry time.Duration) fuzz.Target {
	return fuzz.Target{Name: "leader-annotator", Doc: "the annotator on a manager that elects itself leader through a lease",
		Run: func(ctx context.Context, env *fuzz.Env) error {
			opts := manager.Options{LeaderElection: true, LeaderElectionID: "x", LeaderElectionNamespace: "default"}
			if retry > 0 {
				renew, lease := 2*retry, 4*retry
				opts.RetryPeriod, opts.RenewDeadline, opts.LeaseDuration = &retry, &renew, &lease
			}
			return runLeader(ctx, env, opts)
		}}
}

// runLeader runs the annotator on a manager with opts.
func runLeader(ctx context.Context, env *fuzz.Env, opts manager.Options) error {
	mgr, err := crtarget.NewManager(env, opts)
	if err != nil {
		return err
	}
	err = ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).WithOptions(crtarget.ControllerOptions()).
		Complete(&annotator{c: mgr.GetClient()})
	if err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// TestManagerLeaderElection runs the annotator on a manager with leader
// election on, on every shipped cassette, both client paths. It checks
// that:
//   - the manager creates its lease through the replay's write engine
//     (leases are not recorded) with a holder, and renews it by updates;
//   - it annotates only after it holds the lease (the first configmap
//     write comes after the lease's create);
//   - every invariant holds;
//   - the run ends by itself.
//
// The default 2 s between renewals leaves the quiet second a run's early
// end waits for. So a run stops after 0 to 2 renewals.
func TestManagerLeaderElection(t *testing.T) {
	eachSeed(t, leaderTarget(0), "leader-election manager", "lease created and renewed, reconciled after it", func(t *testing.T, out *fuzz.Outcome, real time.Duration) {
		allHold(t, out)
		obs := out.Observation
		if !obs.EndedEarly || obs.SyncedAt < 0 {
			t.Errorf("got ended early %v, synced at %v, want the run to end by itself after the cache synced", obs.EndedEarly, obs.SyncedAt)
		}
		lease, ok := finalState(obs, leases)[leaseKey]
		if !ok {
			t.Fatalf("got no lease %s in the served history, want the manager's", leaseKey)
		}
		if h := parse(t, lease).Spec.HolderIdentity; h == nil || *h == "" {
			t.Errorf("lease %s: got holderIdentity %v, want the manager's identity", leaseKey, h)
		}
		var created time.Duration = -1
		var renewals []time.Duration
		firstWrite, lastWrite := time.Duration(-1), time.Duration(-1)
		for _, w := range obs.Writes {
			switch {
			case w.Resource.ID() == leases.ID() && w.Key == leaseKey && w.Stored() && w.Verb == "create":
				created = w.At
			case w.Resource.ID() == leases.ID() && w.Key == leaseKey && w.Stored() && w.Verb == "update":
				renewals = append(renewals, w.At)
			case w.Resource.ID() == obs.Resource.ID() && w.Stored():
				if firstWrite < 0 {
					firstWrite = w.At
				}
				lastWrite = w.At
				if created < 0 {
					t.Errorf("configmap %s: got written at %v before the lease was created, want the reconciler to run only once the manager leads", w.Key, w.At)
				}
			}
		}
		if created < 0 {
			t.Fatalf("lease %s: got no stored create, want the manager's", leaseKey)
		}
		var gaps []time.Duration
		prev := created
		for _, at := range renewals {
			gaps = append(gaps, at-prev)
			prev = at
		}
		for i, g := range gaps {
			// client-go's LeaderElector renews every RetryPeriod (controller-runtime's
			// default 2 s) with no jitter. Its renew loop polls at once on acquiring
			// (renew: wait.PollUntilContextTimeout, immediate). So the first renewal
			// follows the create by its requests' latency: 1 ms each, as on a real
			// cluster. With no latency it stored nothing new at the create's instant.
			if i == 0 && g <= 10*time.Millisecond {
				continue
			}
			if g < 1500*time.Millisecond || g > 2500*time.Millisecond {
				t.Errorf("lease %s: got a renewal %v after the one before, want about the retry period, 2s (renewals %v)", leaseKey, g, renewals)
			}
		}
		// Every renewal due before the run stopped the manager happened:
		// a short run stops before the first (2 s after the create).
		stopped := obs.EndedAt - observe.StopGrace
		if due := int((stopped - created) / (2 * time.Second)); len(renewals) < due-1 || len(renewals) > due+1 {
			t.Errorf("lease %s: got %d renewals %v, want %d (one every 2s from the create at %v to the stop at %v)", leaseKey, len(renewals), renewals, due, created, stopped)
		}
		for k, o := range finalState(obs, obs.Resource) {
			if o.Annotations[seenAnnotation] != "true" {
				t.Errorf("configmap %s: got annotations %v, want %s=true", k, o.Annotations, seenAnnotation)
			}
		}
		t.Logf("lease created at %v, %d renewals %v; configmap writes %v..%v; %d writes in all; ended at %v virtual, %v real",
			created, len(renewals), renewals, firstWrite, lastWrite, len(obs.Writes), obs.EndedAt, real.Round(time.Millisecond))
	})
}

// TestManagerLeaderElectionFastRenew runs the leader-election manager
// renewing every 500 ms on one shipped cassette. A run ends early only
// after a second (virtual) with no request, which renewals every 500 ms
// never leave. So the run lasts to the watchdog (15 minutes, virtual),
// renewing about 1800 times. Still every invariant holds: 2 requests a
// second are within no-hot-loop's rate. A renewal period of 1 s or less
// costs every run the watchdog. The default 2 s leaves the quiet second
// between renewals.
func TestManagerLeaderElectionFastRenew(t *testing.T) {
	c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: fuzz.Glob("../../cassettes/real-configmaps-pods-list-pages.yaml"), Target: leaderTarget(500 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("leader-election manager - renewing every 500ms - runs to the watchdog - pass", func(t *testing.T) {
		start := time.Now()
		out := c.Check(t, []byte{0, 0})
		allHold(t, out)
		obs := out.Observation
		if obs.EndedEarly {
			t.Errorf("got an early end at %v, want the run to last to the watchdog (renewals every 500ms leave no quiet second)", obs.EndedAt)
		}
		renewals := storedWrites(obs, leases, "update")[leaseKey]
		if renewals < 1700 || renewals > 1900 {
			t.Errorf("lease %s: got %d renewals, want about 1800 (15 minutes every 500ms)", leaseKey, renewals)
		}
		t.Logf("%d renewals, %d writes in all; ended at %v virtual, %v real", renewals, len(obs.Writes), obs.EndedAt, time.Since(start).Round(time.Millisecond))
	})
}
