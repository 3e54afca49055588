package kuberay

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// TestInvariants shows the example's invariants on a fault-free run of
// KubeRay's RayCluster controller. Both hold on the run's end state.
// raycluster-pods-match-spec fires once a worker Pod is deleted after the
// run, or a second head Pod added. raycluster-status-reports-pods fires
// once a status reports other desired replicas, or another head Pod.
func TestInvariants(t *testing.T) {
	obs := fuzz.FaultFreeRun(t, options(target(t)))
	pl, ok := obs.Served.Log(pods)
	if !ok {
		t.Fatalf("served pods: got none, want the operator's")
	}
	var head, worker *history.Object
	for _, o := range pl.StateAt(pl.End()) {
		switch o.Labels["ray.io/node-type"] {
		case "head":
			head = o
		case "worker":
			worker = o
		}
	}
	if head == nil || worker == nil {
		t.Fatalf("served pods: got head %v worker %v, want both", head, worker)
	}
	cl, _ := obs.Served.Log(rayClusters)
	var cluster *history.Object
	for _, o := range cl.StateAt(cl.End()) {
		if o.Name == head.Labels["ray.io/cluster"] {
			cluster = o
		}
	}
	if cluster == nil {
		t.Fatalf("served rayclusters: got none named %q, want one", head.Labels["ray.io/cluster"])
	}
	rv := 0
	next := func() string {
		if rv == 0 {
			for _, l := range obs.Served.Logs {
				if n, err := strconv.Atoi(l.RVAt(l.End())); err == nil {
					rv = max(rv, n)
				}
			}
		}
		rv++
		return strconv.Itoa(rv)
	}
	tests := []struct {
		name    string
		inv     fuzz.Invariant
		res     history.Resource
		ev      func() history.Event
		wantErr error
	}{
		{name: "raycluster-pods-match-spec - the fault-free run's end state - pass", inv: podsMatchSpec},
		{name: "raycluster-status-reports-pods - the fault-free run's end state - pass", inv: statusReportsPods},
		{name: "raycluster-pods-match-spec - a worker Pod deleted - fail", inv: podsMatchSpec, res: pods, wantErr: ErrPods,
			ev: func() history.Event { return history.Event{Type: history.Deleted, Object: withRV(t, worker, next())} }},
		{name: "raycluster-pods-match-spec - a second head Pod - fail", inv: podsMatchSpec, res: pods, wantErr: ErrPods,
			ev: func() history.Event {
				return history.Event{Type: history.Added, Object: changed(t, head, next(), head.Name+"-dup", "metadata", "name")}
			}},
		{name: "raycluster-status-reports-pods - desiredWorkerReplicas off by 5 - fail", inv: statusReportsPods, res: rayClusters, wantErr: ErrStatus,
			ev: func() history.Event {
				return history.Event{Type: history.Modified, Object: changed(t, cluster, next(), int64(7), "status", "desiredWorkerReplicas")}
			}},
		{name: "raycluster-status-reports-pods - another head Pod named - fail", inv: statusReportsPods, res: rayClusters, wantErr: ErrStatus,
			ev: func() history.Event {
				return history.Event{Type: history.Modified, Object: changed(t, cluster, next(), "gone-head", "status", "head", "podName")}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			judged := obs
			if tc.ev != nil {
				ev := tc.ev()
				ev.From = history.Location{Event: -1}
				judged = fuzz.Appended(t, obs, tc.res, ev)
			}
			err, why := oracle.JudgeOne(tc.inv, judged)
			if why != "" {
				t.Fatalf("got not judged: %s, want a verdict", why)
			}
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("got %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// withRV is o at resourceVersion rv.
func withRV(t *testing.T, o *history.Object, rv string) *history.Object {
	t.Helper()
	out, err := history.WithResourceVersion(o, rv)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// changed is o with its field at path set to v, at resourceVersion rv.
func changed(t *testing.T, o *history.Object, rv string, v any, path ...string) *history.Object {
	t.Helper()
	m := map[string]any{}
	if err := json.Unmarshal(o.Raw, &m); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(m, v, path...); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	out, _, _, err := history.ParseObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	return withRV(t, out, rv)
}
