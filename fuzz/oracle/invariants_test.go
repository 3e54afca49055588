package oracle_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// truth builds a log: ns/a, ns/b, ns/c initially (RVs 1001-1003); then a
// updated (1004), b deleted (1005), d added (1006).
func truth(t *testing.T) *history.Log {
	t.Helper()
	b := synth.NewBuilder()
	a := configMap("a", map[string]string{"v": "1"})
	bb := configMap("b", nil)
	b.Add(a)
	b.Add(bb)
	b.Add(configMap("c", nil))
	b.Snapshot()
	a.Data["v"] = "2"
	b.Update(a)
	b.Delete(bb)
	b.Add(configMap("d", nil))
	h, err := b.History()
	if err != nil {
		t.Fatalf("History: got error %v, want nil", err)
	}
	return h.Logs[0]
}

// goodObservation returns what a correct target observes on truth(t).
func goodObservation(t *testing.T) *observe.Observation {
	t.Helper()
	l := truth(t)
	store := map[string]*history.Object{}
	for _, o := range l.StateAt(l.End()) {
		store[o.Key()] = o
	}
	return &observe.Observation{
		Resource: l.Resource,
		TruthLog: l,
		Store:    store,
		Deliveries: []observe.Delivery{
			{Op: observe.OpAdd, Key: "ns/a", RV: "1001", At: 1 * time.Second},
			{Op: observe.OpAdd, Key: "ns/b", RV: "1002", At: 1 * time.Second},
			{Op: observe.OpAdd, Key: "ns/c", RV: "1003", At: 1 * time.Second},
			{Op: observe.OpUpdate, Key: "ns/a", RV: "1004", At: 2 * time.Second, Synced: true},
			{Op: observe.OpDelete, Key: "ns/b", RV: "1005", At: 3 * time.Second, Synced: true},
			{Op: observe.OpAdd, Key: "ns/d", RV: "1006", At: 4 * time.Second, Synced: true},
		},
		SyncedAt:         time.Second,
		InitialDelivered: 3,
		SyncedRV:         "1003",
		LastFaultAt:      -1,
		ConvergedAt:      4 * time.Second,
	}
}

// *observe.Observation → *oracle.Reference

func TestInvariants(t *testing.T) {
	t.Parallel()
	withObject := func(l *history.Log, key string) *history.Object {
		for _, o := range l.StateAt(l.End()) {
			if o.Key() == key {
				return o
			}
		}
		return nil
	}
	tests := []struct {
		name      string
		invariant string
		mutate    func(o *observe.Observation)
		want      error // nil: holds
		wantText  string
		notJudged bool // the run gives the invariant nothing to judge
	}{
		{name: "converged - store equals the final state - pass", invariant: "converged"},
		{name: "no-spin - a run that never spun - pass", invariant: "no-spin"},
		{name: "no-spin - a run given up spinning - fail", invariant: "no-spin", want: oracle.ErrSpin,
			mutate: func(o *observe.Observation) {
				o.Spin = &observe.Spin{At: time.Minute, After: time.Minute, Stack: "goroutine 7 [running, synctest bubble 1]:\nexample.com/x.spin()\n\t/x.go:3 +0x1"}
			},
			wantText: "kept running without blocking while it ran, at 1m0s of virtual time"},
		{name: "converged - a run given up spinning - not judged", invariant: "converged", notJudged: true,
			mutate: func(o *observe.Observation) { o.Spin = &observe.Spin{At: time.Minute} }},
		{name: "converged - store missing a key - fail", invariant: "converged", want: oracle.ErrNotConverged,
			mutate: func(o *observe.Observation) { delete(o.Store, "ns/c") }, wantText: "missing ns/c (want rv 1003)"},
		{name: "converged - store holds a deleted key - fail", invariant: "converged", want: oracle.ErrNotConverged,
			mutate: func(o *observe.Observation) {
				o.Store["ns/b"] = &history.Object{Namespace: "ns", Name: "b", ResourceVersion: "1002", Raw: []byte(`{}`)}
			}, wantText: "extra ns/b (rv 1002)"},
		{name: "converged - store at an older rv - fail", invariant: "converged", want: oracle.ErrNotConverged,
			mutate: func(o *observe.Observation) { o.Store["ns/a"] = o.TruthLog.Initial[0] }, wantText: "ns/a: rv got 1001, want 1004"},
		{name: "converged - same rv, other content - fail", invariant: "converged", want: oracle.ErrNotConverged,
			mutate: func(o *observe.Observation) {
				c := *withObject(o.TruthLog, "ns/d")
				c.Raw = []byte(`{"metadata":{"name":"d","namespace":"ns","resourceVersion":"1006"}}`)
				o.Store["ns/d"] = &c
			}, wantText: "ns/d: content differs at rv 1006"},
		{name: "converged - same content, other key order and spacing - pass", invariant: "converged",
			mutate: func(o *observe.Observation) {
				c := *withObject(o.TruthLog, "ns/a")
				var v map[string]any
				if err := json.Unmarshal(c.Raw, &v); err != nil {
					t.Fatalf("decode: got %v, want nil", err)
				}
				raw, _ := json.MarshalIndent(v, "", "  ") // keys sorted: data before metadata
				if string(raw) == string(c.Raw) {
					t.Fatalf("re-encoded JSON: got the same bytes, want different ones")
				}
				c.Raw = raw
				o.Store["ns/a"] = &c
			}},
		{name: "converged - no truth - fail", invariant: "converged", want: oracle.ErrNoObservation,
			mutate: func(o *observe.Observation) { o.TruthLog = nil }},

		{name: "no-lost-delete - delete delivered - pass", invariant: "no-lost-delete"},
		{name: "no-lost-delete - tombstone delivered - pass", invariant: "no-lost-delete",
			mutate: func(o *observe.Observation) { o.Deliveries[4] = observe.Delivery{Op: observe.OpTombstone, Key: "ns/b"} }},
		{name: "no-lost-delete - key never seen - pass", invariant: "no-lost-delete",
			mutate: func(o *observe.Observation) { o.Deliveries = append(o.Deliveries[:1], o.Deliveries[2:4]...) }},
		{name: "no-lost-delete - delete never delivered - fail", invariant: "no-lost-delete", want: oracle.ErrLostDelete,
			mutate:   func(o *observe.Observation) { o.Deliveries = append(o.Deliveries[:4], o.Deliveries[5:]...) },
			wantText: "key ns/b: deleted at rv 1005"},
		{name: "no-lost-delete - add after the delete - fail", invariant: "no-lost-delete", want: oracle.ErrLostDelete,
			mutate: func(o *observe.Observation) {
				o.Deliveries = append(o.Deliveries, observe.Delivery{Op: observe.OpUpdate, Key: "ns/b", RV: "1002"})
			}},

		{name: "no-time-travel - rvs move forward - pass", invariant: "no-time-travel"},
		{name: "no-time-travel - same rv again on relist - pass", invariant: "no-time-travel",
			mutate: func(o *observe.Observation) {
				o.Deliveries = append(o.Deliveries, observe.Delivery{Op: observe.OpUpdate, Key: "ns/a", RV: "1004"})
			}},
		{name: "no-time-travel - tombstone without rv - pass", invariant: "no-time-travel",
			mutate: func(o *observe.Observation) { o.Deliveries[4] = observe.Delivery{Op: observe.OpTombstone, Key: "ns/b"} }},
		{name: "no-time-travel - rv goes back - fail", invariant: "no-time-travel", want: oracle.ErrTimeTravel,
			mutate: func(o *observe.Observation) {
				o.Deliveries = append(o.Deliveries, observe.Delivery{Op: observe.OpUpdate, Key: "ns/a", RV: "1001"})
			}, wantText: "key ns/a: delivery 6 (update): rv 1001 after 1004"},

		{name: "synced-after-initial - every initial key delivered - pass", invariant: "synced-after-initial"},
		{name: "synced-after-initial - never synced - not judged, pass", invariant: "synced-after-initial", notJudged: true,
			mutate: func(o *observe.Observation) { o.SyncedAt, o.InitialDelivered = -1, 0 }},
		{name: "synced-after-initial - synced with one key missing - fail", invariant: "synced-after-initial", want: oracle.ErrSyncedEarly,
			mutate: func(o *observe.Observation) { o.InitialDelivered = 2 }, wantText: "want at least 3 (the state at rv 1003)"},
		{name: "synced-after-initial - unknown synced rv, lower bound met - pass", invariant: "synced-after-initial",
			mutate: func(o *observe.Observation) { o.SyncedRV, o.InitialDelivered = "", 2 }},
		{name: "synced-after-initial - unknown synced rv, nothing delivered - fail", invariant: "synced-after-initial", want: oracle.ErrSyncedEarly,
			mutate: func(o *observe.Observation) { o.SyncedRV, o.InitialDelivered = "", 0 }, wantText: "the smallest state of the truth"},

		{name: "live - converged right after the last fault - pass", invariant: "live",
			mutate: func(o *observe.Observation) {
				o.LastFaultAt, o.ConvergedAt = time.Hour, time.Hour+observe.DefaultLiveBound
			}},
		{name: "live - never converged - fail", invariant: "live", want: oracle.ErrNotLive,
			mutate: func(o *observe.Observation) { o.ConvergedAt = -1 }},
		{name: "live - never converged, run unsettled - not judged, pass", invariant: "live", notJudged: true,
			mutate: func(o *observe.Observation) { o.ConvergedAt, o.Unsettled = -1, true }},
		{name: "converged - store differs, run unsettled - not judged, pass", invariant: "converged", notJudged: true,
			mutate: func(o *observe.Observation) { delete(o.Store, "ns/a"); o.Unsettled = true }},
		{name: "converged - store differs, run cut at a broken behaviour bound - not judged, pass", invariant: "converged", notJudged: true,
			mutate: func(o *observe.Observation) {
				delete(o.Store, "ns/a")
				o.BoundEnd = &observe.BoundEnd{Invariant: "no-write-storm", At: time.Minute}
			}},
		{name: "no-lost-delete - delete not yet delivered, run unsettled - not judged, pass", invariant: "no-lost-delete", notJudged: true,
			mutate: func(o *observe.Observation) { o.Deliveries = o.Deliveries[:len(o.Deliveries)-2]; o.Unsettled = true }},
		{name: "live - converged too long after the last fault - fail", invariant: "live", want: oracle.ErrNotLive,
			mutate: func(o *observe.Observation) {
				o.LastFaultAt, o.ConvergedAt = time.Hour, time.Hour+observe.DefaultLiveBound+time.Second
			}},
		{name: "live - a bound of one minute, converged after two - fail", invariant: "live", want: oracle.ErrNotLive,
			mutate: func(o *observe.Observation) {
				o.LastFaultAt, o.ConvergedAt, o.LiveBound = time.Hour, time.Hour+2*time.Minute, time.Minute
			},
			wantText: "want at most 1m0s"},
		{name: "live - the target's own write changed the resource 16 minutes after the last fault, converged a second on - pass", invariant: "live",
			mutate: func(o *observe.Observation) {
				o.Requests = append(o.Requests, observe.Request{At: 21 * time.Minute, Verb: "PUT", Resource: o.Resource.Name(), Code: 200})
				o.LastFaultAt, o.ConvergedAt = 5*time.Minute, 21*time.Minute+time.Second
			}},
		{name: "live - the target's late write refused (409), converged 16 minutes after the last fault - fail", invariant: "live", want: oracle.ErrNotLive,
			mutate: func(o *observe.Observation) {
				o.Requests = append(o.Requests, observe.Request{At: 21 * time.Minute, Verb: "PUT", Resource: o.Resource.Name(), Code: 409})
				o.LastFaultAt, o.ConvergedAt = 5*time.Minute, 21*time.Minute+time.Second
			},
			wantText: "after the last fault or own change at 5m0s"},
		{name: "live - the target's late write of another resource, converged 16 minutes after the last fault - fail", invariant: "live", want: oracle.ErrNotLive,
			mutate: func(o *observe.Observation) {
				o.Requests = append(o.Requests, observe.Request{At: 21 * time.Minute, Verb: "POST", Resource: "pods", Code: 201})
				o.LastFaultAt, o.ConvergedAt = 5*time.Minute, 21*time.Minute+time.Second
			}},
		{name: "live - a bound of one hour, converged after twenty minutes - pass", invariant: "live",
			mutate: func(o *observe.Observation) {
				o.LastFaultAt, o.ConvergedAt, o.LiveBound = time.Hour, time.Hour+20*time.Minute, time.Hour
			}},

		{name: "same-outcome - end state equals the reference's - pass", invariant: "same-outcome",
			mutate: func(o *observe.Observation) { withReference(o, nil) }},
		{name: "same-outcome - an object the reference lacks - fail", invariant: "same-outcome", want: oracle.ErrDiffersFromReference,
			mutate: func(o *observe.Observation) {
				withReference(o, func(ref *oracle.FinalState) { delete(ref.Resources["configmaps"].Objects, "ns/d") })
			}, wantText: "configmaps ns/d: extra (the reference has none)"},
		{name: "same-outcome - a field differs from the reference's - fail", invariant: "same-outcome", want: oracle.ErrDiffersFromReference,
			mutate: func(o *observe.Observation) {
				withReference(o, func(ref *oracle.FinalState) {
					ref.Resources["configmaps"].Objects["ns/a"] = []byte(`{"metadata":{"name":"a","namespace":"ns"},"data":{"v":"9"}}`)
				})
			}, wantText: `configmaps ns/a: data.v: "9" → "2"`},
		{name: "same-outcome - no reference - not judged, pass", invariant: "same-outcome", notJudged: true},
		{name: "same-outcome - neither the run nor the reference wrote - not judged, pass", invariant: "same-outcome", notJudged: true,
			mutate: func(o *observe.Observation) {
				withReference(o, func(ref *oracle.FinalState) { delete(ref.Resources["configmaps"].Objects, "ns/d") })
				o.Writes, referenceOf(o).Writes = nil, 0
			}},
		{name: "same-outcome - differs, the replay took no writes (405) - not judged, pass", invariant: "same-outcome", notJudged: true,
			mutate: func(o *observe.Observation) {
				withReference(o, func(ref *oracle.FinalState) { delete(ref.Resources["configmaps"].Objects, "ns/d") })
				o.Writes[0].Code, o.Writes[0].Event = 405, ""
			}},
		{name: "same-outcome - differs, run unsettled - not judged, pass", invariant: "same-outcome", notJudged: true,
			mutate: func(o *observe.Observation) {
				withReference(o, func(ref *oracle.FinalState) { delete(ref.Resources["configmaps"].Objects, "ns/d") })
				o.Unsettled = true
			}},

		{name: "no-bookmark-object - only objects delivered - pass", invariant: "no-bookmark-object"},
		{name: "no-bookmark-object - bookmark delivered - fail", invariant: "no-bookmark-object", want: oracle.ErrBookmarkObject,
			mutate: func(o *observe.Observation) {
				o.Deliveries = append(o.Deliveries, observe.Delivery{Op: observe.OpAdd, RV: "1007", Bookmark: true})
			}, wantText: "delivery 6: add of a bookmark at rv 1007"},
		{name: "no-bookmark-object - empty key in the store - fail", invariant: "no-bookmark-object", want: oracle.ErrBookmarkObject,
			mutate: func(o *observe.Observation) {
				o.Store[""] = &history.Object{ResourceVersion: "1007", Raw: []byte(`{}`)}
			}},

		{name: "no-write-storm - no writes - pass", invariant: "no-write-storm", mutate: withWrites()},
		{name: "no-write-storm - writes not logged (a verbatim replay) - not judged, pass", invariant: "no-write-storm", notJudged: true},
		{name: "no-write-storm - 30 updates of one object within 10 s - pass", invariant: "no-write-storm",
			mutate: withWrites(storedUpdates("ns/a", 30, 300*time.Millisecond, false))},
		{name: "no-write-storm - 31 updates of one object within 10 s, nothing else changed it - fail", invariant: "no-write-storm", want: oracle.ErrWriteStorm,
			mutate:   withWrites(storedUpdates("ns/a", 40, 300*time.Millisecond, false)),
			wantText: "31 writes of configmaps ns/a from 0s to 9s of virtual time (update ×31 (200 ×31)) with no other change of it between them, want at most 30 within 10s"},
		{name: "no-write-storm - 31 updates of one object, another actor's change before each - pass", invariant: "no-write-storm",
			mutate: withWrites(storedUpdates("ns/a", 40, 300*time.Millisecond, true))},
		{name: "no-write-storm - 31 updates of one object over more than 10 s - pass", invariant: "no-write-storm",
			mutate: withWrites(storedUpdates("ns/a", 40, 350*time.Millisecond, false))},
		{name: "no-write-storm - 31 updates spread over two objects - pass", invariant: "no-write-storm",
			mutate: withWrites(storedUpdates("ns/a", 20, 0, false), storedUpdates("ns/c", 20, 0, false))},
		{name: "no-write-storm - 31 writes of one object and its status - fail", invariant: "no-write-storm", want: oracle.ErrWriteStorm,
			mutate: func(o *observe.Observation) {
				ws := storedUpdates("ns/a", 31, 0, false)
				for i := 1; i < len(ws); i += 2 {
					ws[i].Subresource = "status"
				}
				withWrites(ws)(o)
			},
			wantText: "(update ×16 (200 ×16), update/status ×15 (200 ×15))"},
		{name: "no-write-storm - 40 updates answered 409 Conflict - pass", invariant: "no-write-storm",
			mutate: withWrites(conflicts("ns/a", 40, 0, "Conflict", false))},

		{name: "no-conflict-loop - no writes - pass", invariant: "no-conflict-loop", mutate: withWrites()},
		{name: "no-conflict-loop - 20 conflicts in a row at one stored rv - pass", invariant: "no-conflict-loop",
			mutate: withWrites(conflicts("ns/a", 20, time.Second, "Conflict", false))},
		{name: "no-conflict-loop - 21 conflicts in a row at one stored rv - fail", invariant: "no-conflict-loop", want: oracle.ErrConflictLoop,
			mutate:   withWrites(conflicts("ns/a", 30, time.Second, "Conflict", false)),
			wantText: "21 writes of configmaps ns/a in a row answered 409 Conflict"},
		{name: "no-conflict-loop - 21 conflicts over an hour at one stored rv - fail", invariant: "no-conflict-loop", want: oracle.ErrConflictLoop,
			mutate:   withWrites(conflicts("ns/a", 21, 3*time.Minute, "Conflict", false)),
			wantText: "from 0s to 1h0m0s of virtual time (update ×21 (409 Conflict ×21)), while the object stayed at rv 1004"},
		{name: "no-conflict-loop - 30 conflicts at a version no answer had shown the target - pass", invariant: "no-conflict-loop",
			mutate: func(o *observe.Observation) {
				ws := conflicts("ns/a", 30, time.Second, "Conflict", false)
				for i := range ws {
					ws[i].Unserved = true
				}
				withWrites(ws)(o)
			}},
		{name: "no-conflict-loop - 30 conflicts, the stored object changing between them - pass", invariant: "no-conflict-loop",
			mutate: withWrites(conflicts("ns/a", 30, 0, "Conflict", true))},
		{name: "no-conflict-loop - 40 conflicts, a stored write among them - pass", invariant: "no-conflict-loop",
			mutate: withWrites(conflicts("ns/a", 20, 0, "Conflict", false), storedUpdates("ns/a", 1, 0, false), conflicts("ns/a", 20, 0, "Conflict", false))},
		{name: "no-conflict-loop - 30 conflicts spread over two objects - pass", invariant: "no-conflict-loop",
			mutate: withWrites(conflicts("ns/a", 15, 0, "Conflict", false), conflicts("ns/c", 15, 0, "Conflict", false))},
		{name: "no-conflict-loop - 30 creates answered 409 AlreadyExists - pass", invariant: "no-conflict-loop",
			mutate: withWrites(conflicts("ns/a", 30, 0, "AlreadyExists", false))},
		{name: "no-conflict-loop - verbatim replay, 21 updates answered 409 in a row - fail", invariant: "no-conflict-loop", want: oracle.ErrConflictLoop,
			mutate:   func(o *observe.Observation) { o.Requests = writeRequests("PUT", 21, 409) },
			wantText: "21 write requests of configmaps in a row answered 409"},
		{name: "no-conflict-loop - verbatim replay, 30 creates answered 409 - pass", invariant: "no-conflict-loop",
			mutate: func(o *observe.Observation) { o.Requests = writeRequests("POST", 30, 409) }},
		{name: "no-conflict-loop - verbatim replay, 40 updates answered 409, one 200 among them - pass", invariant: "no-conflict-loop",
			mutate: func(o *observe.Observation) {
				o.Requests = append(append(writeRequests("PUT", 20, 409), writeRequests("PUT", 1, 200)...), writeRequests("PUT", 20, 409)...)
			}},

		{name: "no-create-loop - no writes - pass", invariant: "no-create-loop", mutate: withWrites()},
		{name: "no-create-loop - 20 creates in a row answered 409 AlreadyExists - pass", invariant: "no-create-loop",
			mutate: withWrites(refusedCreates("ns/a", 20, 200*time.Millisecond, "AlreadyExists", false))},
		{name: "no-create-loop - 21 creates in a row answered 409 AlreadyExists, 5 a second - fail", invariant: "no-create-loop", want: oracle.ErrCreateLoop,
			mutate:   withWrites(refusedCreates("ns/a", 3100, 200*time.Millisecond, "AlreadyExists", false)),
			wantText: "21 writes of configmaps ns/a in a row answered 409 AlreadyExists from 0s to 4s of virtual time (create ×21 (409 AlreadyExists ×21)), while the object stayed at rv 1004"},
		{name: "no-create-loop - 30 creates refused at a version no answer had shown the target - pass", invariant: "no-create-loop",
			mutate: func(o *observe.Observation) {
				ws := refusedCreates("ns/a", 30, time.Second, "AlreadyExists", false)
				for i := range ws {
					ws[i].Unserved = true
				}
				withWrites(ws)(o)
			}},
		{name: "no-create-loop - 30 creates refused, the stored object changing between them - pass", invariant: "no-create-loop",
			mutate: withWrites(refusedCreates("ns/a", 30, 0, "AlreadyExists", true))},
		{name: "no-create-loop - 40 creates refused, a stored update among them - pass", invariant: "no-create-loop",
			mutate: withWrites(refusedCreates("ns/a", 20, 0, "AlreadyExists", false), storedUpdates("ns/a", 1, 0, false), refusedCreates("ns/a", 20, 0, "AlreadyExists", false))},
		{name: "no-create-loop - 30 creates of 30 objects, each refused once - pass", invariant: "no-create-loop",
			mutate: func(o *observe.Observation) {
				var ws []history.WriteAnswer
				for i := range 30 {
					ws = append(ws, refusedCreates(fmt.Sprintf("ns/c%d", i), 1, 0, "AlreadyExists", false)...)
				}
				withWrites(ws)(o)
			}},
		{name: "no-create-loop - 30 updates answered 409 Conflict - pass", invariant: "no-create-loop",
			mutate: withWrites(conflicts("ns/a", 30, 0, "Conflict", false))},
		{name: "no-create-loop - verbatim replay - not judged, pass", invariant: "no-create-loop", notJudged: true,
			mutate: func(o *observe.Observation) { o.Requests = writeRequests("POST", 30, 409) }},

		{name: "consistent-list - no list reported - not judged, pass", invariant: "consistent-list", notJudged: true},
		{name: "consistent-list - the final state at the last rv - pass", invariant: "consistent-list",
			mutate: func(o *observe.Observation) {
				o.Listings = []observe.Listing{listingOf(t, o.TruthLog, o.TruthLog.End(), nil)}
			}},
		{name: "consistent-list - an unplaceable rv - pass", invariant: "consistent-list",
			mutate: func(o *observe.Observation) {
				li := listingOf(t, o.TruthLog, o.TruthLog.End(), nil)
				li.RV = "opaque"
				o.Listings = []observe.Listing{li}
			}},
		{name: "consistent-list - one key at an older rv than the state at the list's rv - fail", invariant: "consistent-list", want: oracle.ErrInconsistentList,
			mutate: func(o *observe.Observation) {
				o.Listings = []observe.Listing{listingOf(t, o.TruthLog, o.TruthLog.End(), func(u *unstructured.Unstructured) {
					if u.GetName() == "a" {
						u.SetResourceVersion("1001")
					}
				})}
			}, wantText: "list 0 at 0s, rv 1006"},
		{name: "consistent-list - the initial state at the last rv - fail", invariant: "consistent-list", want: oracle.ErrInconsistentList,
			mutate: func(o *observe.Observation) {
				li := listingOf(t, o.TruthLog, 0, nil)
				li.RV = o.TruthLog.Events[len(o.TruthLog.Events)-1].RV()
				o.Listings = []observe.Listing{li}
			}},
		{name: "clean-stop - no panic, no goroutine left - pass", invariant: "clean-stop"},
		{name: "clean-stop - handler panicked - fail", invariant: "clean-stop", want: oracle.ErrUncleanStop,
			mutate: func(o *observe.Observation) { o.Panics = []string{"runtime error: nil map"} }, wantText: "panic: runtime error: nil map"},
		{name: "clean-stop - one panic three times - fail, said once with a count", invariant: "clean-stop", want: oracle.ErrUncleanStop,
			mutate:   func(o *observe.Observation) { o.Panics = []string{"boom", "other", "boom", "boom"} },
			wantText: "unclean stop: panic (3 times): boom\nunclean stop: panic: other"},
		{name: "clean-stop - target recorded an error - fail", invariant: "clean-stop", want: oracle.ErrUncleanStop,
			mutate:   func(o *observe.Observation) { o.Errors = []string{"Added delta: indexer get: broken"} },
			wantText: "unclean stop: target error: Added delta: indexer get: broken"},
		{name: "clean-stop - five target errors - fail, three said and a count", invariant: "clean-stop", want: oracle.ErrUncleanStop,
			mutate:   func(o *observe.Observation) { o.Errors = []string{"e1", "e2", "e3", "e4", "e5"} },
			wantText: "target error: e3\nunclean stop: 2 more target errors"},
		{name: "clean-stop - goroutines left - fail", invariant: "clean-stop", want: oracle.ErrUncleanStop,
			mutate: func(o *observe.Observation) { o.LeftGoroutines = 2 }, wantText: "2 goroutines left"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv, ok := oracle.LookupInvariant(tt.invariant)
			if !ok {
				t.Fatalf("Lookup(%q): got false, want true", tt.invariant)
			}
			o := goodObservation(t)
			if tt.mutate != nil {
				tt.mutate(o)
			}
			err, why := oracle.JudgeOneAgainst(inv, o, referenceOf(o))
			if (why != "") != tt.notJudged {
				t.Errorf("not judged: got %q, want not judged %v", why, tt.notJudged)
			}
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("Check: got %v, want nil", err)
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("Check: got %v, want an error wrapping %v", err, tt.want)
			}
			if tt.wantText != "" && !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("Check: got %q, want it to contain %q", err, tt.wantText)
			}
		})
	}
}

func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: data}
}
