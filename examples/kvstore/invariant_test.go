package kvstore

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// TestPVCOutlivesPod shows the example's invariant judging the operator's
// PVC deletes alone. It takes the served history of a fault-free run of
// the correct operator. It appends a pod mounting PVC data-demo-2, and
// that PVC. Then it appends the PVC's delete, by the operator or another
// actor, before or after the pod is gone. The invariant must break only
// when the operator deleted it under the pod.
func TestPVCOutlivesPod(t *testing.T) {
	obs := fuzz.FaultFreeRun(t, options(t, target(t, "kvstore")))
	next := newestRV(t, obs.Served)
	rv := func() string { next++; return strconv.FormatUint(next, 10) }
	const ns, claim = "e2e-kvstore", "data-demo-2"
	tests := []struct {
		name    string
		podGone bool   // the pod is deleted before the PVC
		from    string // the PVC delete's Location File
		podOf   string // the PVC the pod mounts
		wantBug bool
	}{
		{name: "pvc-outlives-pod - the operator deletes a PVC its running pod mounts - fail", from: history.TargetWrite, podOf: claim, wantBug: true},
		{name: "pvc-outlives-pod - the operator deletes it once the pod is gone - pass", podGone: true, from: history.TargetWrite, podOf: claim},
		{name: "pvc-outlives-pod - another actor deletes it while the pod runs - pass", from: "", podOf: claim},
		{name: "pvc-outlives-pod - the running pod mounts another PVC - pass", from: history.TargetWrite, podOf: "data-demo-0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := object(t, fmt.Sprintf(`{"metadata":{"namespace":%q,"name":"demo-2","uid":"pod-uid","resourceVersion":%q},"spec":{"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":%q}}]}}`, ns, rv(), tc.podOf))
			judged := fuzz.Appended(t, obs, pods, history.Event{Type: history.Added, Object: pod, From: history.Location{Event: -1}})
			pvc := object(t, fmt.Sprintf(`{"metadata":{"namespace":%q,"name":%q,"uid":"pvc-uid","resourceVersion":%q}}`, ns, claim, rv()))
			judged = fuzz.Appended(t, judged, pvcs, history.Event{Type: history.Added, Object: pvc, From: history.Location{Event: -1}})
			if tc.podGone {
				gone := withRV(t, pod, rv())
				judged = fuzz.Appended(t, judged, pods, history.Event{Type: history.Deleted, Object: gone, From: history.Location{Event: -1}})
			}
			del := withRV(t, pvc, rv())
			judged = fuzz.Appended(t, judged, pvcs, history.Event{Type: history.Deleted, Object: del, From: history.Location{File: tc.from, Event: -1}})
			err, why := oracle.JudgeOne(pvcOutlivesPod, judged)
			if why != "" {
				t.Fatalf("got not judged: %s, want a verdict", why)
			}
			if got := errors.Is(err, ErrClaimInUse); got != tc.wantBug {
				t.Errorf("got %v, want %v broken %v", err, ErrClaimInUse, tc.wantBug)
			}
		})
	}
}

// newestRV returns the newest resourceVersion of h's logs.
func newestRV(t *testing.T, h *history.History) uint64 {
	t.Helper()
	var n uint64
	for _, r := range []history.Resource{kvstores, pvcs, pods} {
		l, ok := h.Log(r)
		if !ok {
			continue
		}
		v, err := strconv.ParseUint(l.RVAt(l.End()), 10, 64)
		if err != nil {
			t.Fatalf("%s: resourceVersion %q: %v", r, l.RVAt(l.End()), err)
		}
		n = max(n, v)
	}
	return n
}

// object parses raw into a history object.
func object(t *testing.T, raw string) *history.Object {
	t.Helper()
	o, _, _, err := history.ParseObject([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// withRV returns o at resourceVersion rv.
func withRV(t *testing.T, o *history.Object, rv string) *history.Object {
	t.Helper()
	out, err := history.WithResourceVersion(o, rv)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
