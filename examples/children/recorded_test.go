package children

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
)

// recordedCassette is the controller's recording against kube-apiserver
// 1.37.2 + etcd. (e2e's TestRecordController regenerates it under
// -update, and checks it against a fresh recording.) The controller, on
// one namespace, makes the children and annotations of the parents p1, p2
// and p3. Meanwhile another actor changes p1's data, adds p4, deletes p3
// and changes p2-child's data, a second apart.
const recordedCassette = "testdata/recorded.yaml"

// change is one change of a configmap as a history serves it: "MODIFIED
// ns/p1 at 1.22s".
type change struct {
	typ history.EventType
	key string
	at  time.Duration
}

// String is the change in one line.
func (c change) String() string { return fmt.Sprintf("%s %s at %v", c.typ, c.key, c.at) }

// recording is what TestReplayRecorded reads off the recording itself.
type recording struct {
	stored        map[string]bool   // "verb key" of the recorded client's stored writes
	others        []string          // the other actors' changes (history.WithoutOwn), in order
	childChanges  map[string]cmData // a child the other actors changed → its data after
	finalChildren map[string]string // the children at the end of the recording → their UIDs
}

// cmData is a configmap's data.
type cmData map[string]string

// dataOf reads the data of a history object.
func dataOf(t *testing.T, o *history.Object) cmData {
	t.Helper()
	var cm struct {
		Data cmData `json:"data"`
	}
	if err := json.Unmarshal(o.Raw, &cm); err != nil {
		t.Fatalf("%s: got error %v, want a configmap", o.Key(), err)
	}
	return cm.Data
}

// readRecording builds the recording's history and reads its facts.
func readRecording(t *testing.T) recording {
	t.Helper()
	files, err := cassette.LoadAll(recordedCassette)
	if err != nil {
		t.Fatalf("load %s: got error %v, want the recording", recordedCassette, err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatalf("build %s: got error %v, want its history", recordedCassette, err)
	}
	others, err := history.WithoutOwn(h, nil)
	if err != nil {
		t.Fatalf("WithoutOwn: got error %v, want the other actors' history", err)
	}
	r := recording{stored: map[string]bool{}, childChanges: map[string]cmData{}, finalChildren: map[string]string{}}
	for _, w := range h.Writes {
		if w.Stored() {
			r.stored[w.Verb+" "+w.Key] = true
		}
	}
	ol, _ := others.Log(configMaps)
	for _, e := range ol.Events {
		r.others = append(r.others, change{e.Type, e.Object.Key(), e.At}.String())
		if e.Type == history.Modified && e.Object.Labels[ChildLabel] != "" {
			r.childChanges[e.Object.Key()] = dataOf(t, e.Object)
		}
	}
	l, _ := h.Log(configMaps)
	for _, o := range l.StateAt(l.End()) {
		if o.Labels[ChildLabel] != "" {
			r.finalChildren[o.Key()] = o.UID
		}
	}
	if len(r.stored) == 0 || len(r.others) == 0 || len(r.childChanges) == 0 || len(r.finalChildren) == 0 {
		t.Fatalf("%s: got stored writes %q, other actors' changes %q, changed children %v, final children %v; want some of each",
			recordedCassette, slices.Sorted(maps.Keys(r.stored)), r.others, r.childChanges, r.finalChildren)
	}
	return r
}

// served is what TestReplayRecorded reads off a run.
type served struct {
	final   map[string]*history.Object // the served configmaps at the end, by key
	notOwn  []string                   // the served changes no stored write of the controller's made, in order
	stored  map[string]bool            // "verb key" of the controller's stored writes
	created map[string]string          // key → UID of each object the controller's create stored
}

// readServed classifies the served changes of the run's configmaps. Each
// stored write of the controller's is one: an added or modified object at
// the write's resourceVersion after, or a deletion of its key. The others
// are the recorded changes the replay served.
func readServed(t *testing.T, o *fuzz.Observation) served {
	t.Helper()
	l, ok := o.Served.Log(configMaps)
	if !ok {
		t.Fatalf("got no served configmaps, want the run's")
	}
	s := served{final: map[string]*history.Object{}, stored: map[string]bool{}, created: map[string]string{}}
	for _, obj := range l.StateAt(l.End()) {
		s.final[obj.Key()] = obj
	}
	mine := map[string][]fuzz.Write{} // per key, the controller's stored writes not yet matched
	for _, w := range o.Writes {
		if w.Stored() && w.Resource.ID() == configMaps.ID() {
			mine[w.Key] = append(mine[w.Key], w)
			s.stored[w.Verb+" "+w.Key] = true
		}
	}
	for _, e := range l.Events {
		key := e.Object.Key()
		i := slices.IndexFunc(mine[key], func(w fuzz.Write) bool {
			return w.Event == e.Type && (e.Type == history.Deleted || w.RVAfter == e.RV())
		})
		if i < 0 {
			s.notOwn = append(s.notOwn, change{e.Type, key, e.At}.String())
			continue
		}
		if mine[key][i].Verb == "create" {
			s.created[key] = e.Object.UID
		}
		mine[key] = slices.Delete(mine[key], i, i+1)
	}
	for key, ws := range mine {
		if len(ws) > 0 {
			t.Errorf("the controller's stored writes of %s: got %v with no served change, want each one served", key, ws)
		}
	}
	return s
}

// replayedToItself checks a replay of the controller to itself. Every invariant
// holds. The controller's stored writes cover the recorded client's. The served
// changes are its writes and the other actors' recorded changes, each once, at
// their recorded offsets, in order. None of its recorded echoes is served. The
// other actor's change of a child is in that child's final state, onto the child
// the controller created.
func replayedToItself(t *testing.T, rec recording, out *fuzz.Outcome) {
	if out.Failed() {
		t.Errorf("got a failure, want every invariant to hold:\n%s", out.Report)
	}
	s := readServed(t, out.Observation)
	var missing []string
	for _, w := range slices.Sorted(maps.Keys(rec.stored)) {
		if !s.stored[w] {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the controller's stored writes: got %q, want them to cover the recorded client's %q (missing %q)",
			slices.Sorted(maps.Keys(s.stored)), slices.Sorted(maps.Keys(rec.stored)), missing)
	}
	if !slices.Equal(s.notOwn, rec.others) {
		t.Errorf("the served changes that are no write of the controller's: got %q, want the other actors' recorded changes %q", s.notOwn, rec.others)
	}
	for key, want := range rec.childChanges {
		obj, ok := s.final[key]
		if !ok {
			t.Errorf("child %s: got none at the end, want it with the other actor's data %v", key, want)
			continue
		}
		if got := dataOf(t, obj); !maps.Equal(got, want) || obj.Labels[ChildLabel] != "true" {
			t.Errorf("child %s: got data %v, label %q, want the other actor's data %v next to the controller's label %q", key, got, obj.Labels[ChildLabel], want, "true")
		}
		if uid, ok := s.created[key]; !ok || obj.UID != uid {
			t.Errorf("child %s: got UID %s, want %q, the UID of the controller's create (ok %v)", key, obj.UID, uid, ok)
		}
	}
}

// asRecorded checks a replay of the recording as it was, every recorded
// change at once. The recorded children are there, and the controller's
// creates of them store nothing. children-match-parents wants each child
// to be a create of the controller's, so it breaks, naming each.
func asRecorded(t *testing.T, rec recording, out *fuzz.Outcome) {
	s := readServed(t, out.Observation)
	for key, uid := range rec.finalChildren {
		if obj, ok := s.final[key]; !ok || obj.UID != uid {
			t.Errorf("child %s: got %v at the end, want the recorded child (UID %s)", key, obj, uid)
		}
		if s.stored["create "+key] {
			t.Errorf("child %s: got the controller's create stored, want none (the recorded child is there)", key)
		}
	}
	if got := broken(out); !slices.Equal(got, []string{childrenMatchParents.Name}) {
		t.Fatalf("broken invariants: got %q, want %q; report:\n%s", got, childrenMatchParents.Name, out.Report)
	}
	msg := out.Results[childrenMatchParents.Name].Error()
	for key := range rec.finalChildren {
		if want := fmt.Sprintf("child %s: got no create of the controller's", key); !strings.Contains(msg, want) {
			t.Errorf("children-match-parents: got %q, want it to say %q", msg, want)
		}
	}
}

// TestReplayRecorded replays the controller's recording against the real
// kube-apiserver to the same controller, at the recorded pace. It runs
// both client paths: a LIST and a watch, and a WatchList.
//
// With ExpectOwn, the recording is the other actors' world
// (history.WithoutOwn). The controller's recorded writes and their echoes
// are left out, and expected of the controller. It makes them again: its
// creates, its annotating updates, its delete of the deleted parent's
// child. The other actor's changes come at their recorded offsets. They
// are served as that actor's writes onto what the controller wrote. p1's
// new data goes onto the annotated parent, and p2-child's new key onto
// the child the controller created.
//
// Without ExpectOwn, replayed as recorded with every change at once (the
// default pace), the world is the recording's end. The controller's own
// recorded children and annotations are there before it starts. So it
// creates no child. Its one write observed is a delete of p3-child, from
// seeing the recorded p3 come and go. It is answered 404: the recorded
// controller deleted it. children-match-parents wants every child to be
// the controller's create, so it breaks. The recording holds the
// controller's writes. Only ExpectOwn makes them the replayed
// controller's to make.
//
// Without ExpectOwn at the recorded pace, the controller makes each write
// before its recorded echo comes. It acts at 100ms of virtual time
// (client-go's WaitForCacheSync polls every 100ms). The echoes were
// recorded from 105ms on, after the recorded writes. The replay serves
// each echo as another writer's write onto what the controller made. It is
// answered as kube-apiserver answers it. The create of a child it made is
// refused. The update of the annotations it set changes no field, and
// stores nothing. The delete of the child it deleted finds nothing. The
// served world is then the same as with ExpectOwn. What ExpectOwn adds is
// that this holds whatever the timing. (At the default pace, above, the
// echoes come first.)
func TestReplayRecorded(t *testing.T) {
	rec := readRecording(t)
	tests := []struct {
		name      string
		expectOwn bool
		pace      replayer.Pace
		check     func(*testing.T, recording, *fuzz.Outcome)
	}{
		{name: "replay recorded - the controller replayed to itself, own writes expected, recorded pace - pass",
			expectOwn: true, pace: replayer.Pace{Mode: replayer.PaceRecorded}, check: replayedToItself},
		{name: "replay recorded - the same recording without ExpectOwn - the recorded children are there already - fail",
			check: asRecorded},
		{name: "replay recorded - the same recording without ExpectOwn, recorded pace - the controller writes before its recorded echoes, each another writer's no-op - pass",
			pace: replayer.Pace{Mode: replayer.PaceRecorded}, check: replayedToItself},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: []string{recordedCassette}, Target: controllerTarget("children"),
				Extra: []fuzz.Invariant{childrenMatchParents}, ExpectOwn: tc.expectOwn, Pace: tc.pace})
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range [][]byte{{0, 0}, {0, 1}} {
				t.Run(fmt.Sprintf("input %q", in), func(t *testing.T) {
					out := c.Check(t, in)
					t.Logf("WatchList %v, writes:\n%s", out.WatchList, writeLines(out.Observation.Writes))
					tc.check(t, rec, out)
				})
			}
		})
	}
}

// writeLines is ws, a line each.
func writeLines(ws []fuzz.Write) string {
	var b strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&b, "  %s\n", w)
	}
	return b.String()
}
