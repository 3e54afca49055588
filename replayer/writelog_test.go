package replayer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/lwreplay/lwreplay/history"
)

// configmapsRes is the configmaps resource as a write to listHistory's
// replay names it.
var configmapsRes = history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// TestWriteLog drives client-go's typed client through writes of every
// kind on a replay of listHistory (newest rv 1012, listed first). Each
// answer (stored, refused, dry run) is one history.WriteAnswer of the log,
// in order. It holds its verb and key, and the stored object's
// resourceVersions before and after. It holds its code and reason, and
// the time it was answered.
func TestWriteLog(t *testing.T) {
	s := New(listHistory(t))
	cs := writeClient(t, s, false)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cms := cs.CoreV1().ConfigMaps("a")
	if _, err := cms.List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("List: got error %v, want none", err)
	}
	cm := func(name, rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv}, Data: map[string]string{"k": rv}}
	}
	steps := []struct {
		name string
		do   func(kubernetes.Interface) error
		want history.WriteAnswer // At left out
	}{
		{name: "write log - create - stored, no rv before - pass",
			do: func(kubernetes.Interface) error {
				_, err := cms.Create(ctx, cm("made", ""), metav1.CreateOptions{})
				return err
			},
			want: history.WriteAnswer{Verb: "create", Resource: configmapsRes, Key: "a/made", RVAfter: "1013", Code: 201, Event: history.Added}},
		{name: "write log - create of an existing name - refused AlreadyExists, rv unchanged - fail",
			do: func(kubernetes.Interface) error {
				_, err := cms.Create(ctx, cm("made", ""), metav1.CreateOptions{})
				return err
			},
			want: history.WriteAnswer{Verb: "create", Resource: configmapsRes, Key: "a/made", RVBefore: "1013", RVAfter: "1013", Code: 409, Reason: string(metav1.StatusReasonAlreadyExists)}},
		{name: "write log - update at a stale rv - refused Conflict, rv unchanged - fail",
			do: func(kubernetes.Interface) error {
				_, err := cms.Update(ctx, cm("made", "1011"), metav1.UpdateOptions{})
				return err
			},
			want: history.WriteAnswer{Verb: "update", Resource: configmapsRes, Key: "a/made", RVBefore: "1013", RVAfter: "1013", Code: 409, Reason: string(metav1.StatusReasonConflict)}},
		{name: "write log - update at the stored rv - stored - pass",
			do: func(kubernetes.Interface) error {
				_, err := cms.Update(ctx, cm("made", "1013"), metav1.UpdateOptions{})
				return err
			},
			want: history.WriteAnswer{Verb: "update", Resource: configmapsRes, Key: "a/made", RVBefore: "1013", RVAfter: "1014", Code: 200, Event: history.Modified}},
		{name: "write log - create as a dry run - nothing stored - pass",
			do: func(kubernetes.Interface) error {
				_, err := cms.Create(ctx, cm("dry", ""), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				return err
			},
			want: history.WriteAnswer{Verb: "create", Resource: configmapsRes, Key: "a/dry", Code: 201, DryRun: true}},
		{name: "write log - merge patch - stored - pass",
			do: func(kubernetes.Interface) error {
				_, err := cms.Patch(ctx, "made", types.MergePatchType, []byte(`{"data":{"k":"p"}}`), metav1.PatchOptions{})
				return err
			},
			want: history.WriteAnswer{Verb: "patch", Resource: configmapsRes, Key: "a/made", RVBefore: "1014", RVAfter: "1015", Code: 200, Event: history.Modified}},
		{name: "write log - create with generateName - the generated key - pass",
			do: func(kubernetes.Interface) error {
				got, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}, metav1.CreateOptions{})
				if err == nil && !strings.HasPrefix(got.Name, "gen-") {
					t.Errorf("generated name: got %q, want gen-…", got.Name)
				}
				return err
			},
			want: history.WriteAnswer{Verb: "create", Resource: configmapsRes, Key: "a/gen-", RVAfter: "1016", Code: 201, Event: history.Added}},
		{name: "write log - delete - stored, no rv after - pass",
			do:   func(kubernetes.Interface) error { return cms.Delete(ctx, "made", metav1.DeleteOptions{}) },
			want: history.WriteAnswer{Verb: "delete", Resource: configmapsRes, Key: "a/made", RVBefore: "1015", Code: 200, Event: history.Deleted}},
		{name: "write log - delete of a missing object - refused NotFound - fail",
			do:   func(kubernetes.Interface) error { return cms.Delete(ctx, "made", metav1.DeleteOptions{}) },
			want: history.WriteAnswer{Verb: "delete", Resource: configmapsRes, Key: "a/made", Code: 404, Reason: string(metav1.StatusReasonNotFound)}},
		{name: "write log - delete of a collection - one write of no one key - pass",
			do: func(kubernetes.Interface) error {
				return cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
			},
			want: history.WriteAnswer{Verb: "deletecollection", Resource: configmapsRes, Code: 200, Event: history.Deleted}},
	}
	for i, st := range steps {
		err := st.do(cs)
		if (err == nil) != strings.HasSuffix(st.name, "- pass") {
			t.Errorf("%s: got error %v, want one exactly when the step fails", st.name, err)
		}
		got := s.Writes()
		if len(got) != i+1 {
			t.Fatalf("%s: got %d writes logged (%v), want %d", st.name, len(got), got, i+1)
		}
		w := got[i]
		if i > 0 && w.At < got[i-1].At {
			t.Errorf("%s: got at %v, before the previous write's %v, want the log in time order", st.name, w.At, got[i-1].At)
		}
		w.At = 0
		if strings.HasPrefix(w.Key, "a/gen-") {
			w.Key = "a/gen-" // the suffix is the run's
		}
		if w != st.want {
			t.Errorf("%s: got %+v, want %+v", st.name, w, st.want)
		}
	}
}

// TestWriteLogRefusals checks the writes a replay refuses before it tries
// them. They are logged with the refusal's code and reason. A request
// that writes nothing is not.
func TestWriteLogRefusals(t *testing.T) {
	widgets := history.Resource{Group: "example.com", Version: "v1", Resource: "widgets"}
	tests := []struct {
		name   string
		opts   []Option
		opaque bool // the history is opaqueHistory's, not listHistory's
		method string
		path   string
		want   []history.WriteAnswer // At left out
	}{
		{name: "write log - create on a read-only replay - 405 logged - fail", opts: []Option{WithReadOnly()},
			method: http.MethodPost, path: "/api/v1/namespaces/a/configmaps",
			want: []history.WriteAnswer{{Verb: "create", Resource: history.Resource{Version: "v1", Resource: "configmaps"}, Code: 405, Reason: string(metav1.StatusReasonMethodNotAllowed)}}},
		{name: "write log - update of a history with opaque RVs - 405 logged - fail", opaque: true,
			method: http.MethodPut, path: "/api/v1/namespaces/ns/secrets/a",
			want: []history.WriteAnswer{{Verb: "update", Resource: history.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}, Key: "ns/a", Code: 405, Reason: string(metav1.StatusReasonMethodNotAllowed)}}},
		{name: "write log - delete of a resource the replay knows nothing of - 404 logged - fail",
			method: http.MethodDelete, path: "/apis/example.com/v1/namespaces/a/widgets/w",
			want: []history.WriteAnswer{{Verb: "delete", Resource: widgets, Key: "a/w", Code: 404, Reason: string(metav1.StatusReasonNotFound)}}},
		{name: "write log - HEAD of an object - no write, nothing logged - pass",
			method: http.MethodHead, path: "/api/v1/namespaces/a/configmaps/one"},
		{name: "write log - POST to a path of no resource - no object written, nothing logged - pass",
			method: http.MethodPost, path: "/version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := listHistory(t)
			if tc.opaque {
				h = opaqueHistory(t)
			}
			s := New(h, tc.opts...)
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, strings.NewReader(`{}`)))
			got := s.Writes()
			for i := range got {
				got[i].At = 0
			}
			if len(got) != len(tc.want) {
				t.Fatalf("writes: got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("write %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
				if got[i].Code != rec.Code {
					t.Errorf("write %d: got code %d, want the answer's %d", i, got[i].Code, rec.Code)
				}
			}
		})
	}
}

// TestWriteLogUnserved checks history.WriteAnswer.Unserved. Take a
// conflict with a version of the object that no answer had shown the
// client. (The replay's reads are still at the initial state, which a/one
// left at 1009.) It is unserved. Once a read has reached that state, the
// same conflict is not. After a restart (ForgetListings) it is again,
// until the new instance reads that state.
func TestWriteLogUnserved(t *testing.T) {
	s := New(listHistory(t))
	cs := writeClient(t, s, false)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cms := cs.CoreV1().ConfigMaps("a")
	stale := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "one", ResourceVersion: "1001"}, Data: map[string]string{"k": "w"}}
	steps := []struct {
		name    string
		restart bool // the target's instance starts afresh (ForgetListings) before the update
		read    bool // a LIST at the newest rv before the update
		want    bool
	}{
		{name: "write log unserved - conflict with a version no read reached - unserved - pass", want: true},
		{name: "write log unserved - conflict after a LIST reached it - served - pass", read: true, want: false},
		{name: "write log unserved - conflict after a restart, the LIST an earlier instance's - unserved - pass", restart: true, want: true},
		{name: "write log unserved - conflict after the new instance's LIST - served - pass", read: true, want: false},
	}
	for i, st := range steps {
		if st.restart {
			s.ForgetListings()
		}
		if st.read {
			if _, err := cms.List(ctx, metav1.ListOptions{ResourceVersion: "1012", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}); err != nil {
				t.Fatalf("%s: List: got error %v, want none", st.name, err)
			}
		}
		if _, err := cms.Update(ctx, stale, metav1.UpdateOptions{}); err == nil {
			t.Fatalf("%s: Update: got no error, want 409", st.name)
		}
		log := s.Writes()
		if len(log) != i+1 {
			t.Fatalf("%s: got %d writes logged, want %d", st.name, len(log), i+1)
		}
		w := log[i]
		if w.Code != 409 || w.RVBefore != "1009" || w.Unserved != st.want {
			t.Errorf("%s: got code %d, rv before %s, unserved %v; want 409, 1009, %v", st.name, w.Code, w.RVBefore, w.Unserved, st.want)
		}
	}
}

// TestWriteLogUnservedWatched checks what shows a target the object its
// create meets again (history.WriteAnswer.Unserved). A target that never
// watched configmaps knows it from its first create's answer. One that
// watches them acts on its cache: a watch a fault holds back has not
// shown it, a watch that delivered it has. A target whose every watch a
// fault refuses still acts on its cache: asking for a watch makes it one
// that watches.
func TestWriteLogUnservedWatched(t *testing.T) {
	tests := []struct {
		name      string
		plan      string // "" for none
		watch     bool   // a watch from rv 1012 opened before the creates
		watchList bool   // that watch asks for initial events (a WatchList)
		deliver   bool   // wait for the watch to deliver the first create
		refused   bool   // the watch's request is answered an HTTP error
		want      bool
	}{
		{name: "write log unserved - created again, no watch: its own answer showed it - served - pass", want: false},
		{name: "write log unserved - created again, its watch held back by a delay - unserved - pass",
			plan: "delay:ms=3600000,from=0", watch: true, want: true},
		{name: "write log unserved - created again, its watch delivered the create - served - pass",
			watch: true, deliver: true, want: false},
		{name: "write log unserved - created again, its watch refused 429 at open - unserved - pass",
			plan: "http-error:code=429,watch=1", watch: true, refused: true, want: true},
		{name: "write log unserved - created again, its watch expired at open - unserved - pass",
			plan: "expire-watch:after=0,watch=1", watch: true, want: true},
		{name: "write log unserved - created again, a WatchList served as a plain watch delivered it - unserved - pass",
			plan: "initial-events-ignored:from=0", watch: true, watchList: true, deliver: true, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.plan != "" {
				opts = append(opts, WithPlan(mustPlan(t, tc.plan)))
			}
			s := New(listHistory(t), opts...)
			cms := writeClient(t, s, false).CoreV1().ConfigMaps("a")
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if _, err := cms.List(ctx, metav1.ListOptions{}); err != nil {
				t.Fatalf("List: got error %v, want none", err)
			}
			var events <-chan watch.Event
			if tc.watch {
				opts := metav1.ListOptions{ResourceVersion: "1012"}
				if tc.watchList {
					// client-go's WatchList holds what comes before the
					// initial-events-end bookmark, which never comes here
					opts.SendInitialEvents, opts.AllowWatchBookmarks = ptr.To(true), true
					opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
				}
				w, err := cms.Watch(ctx, opts)
				switch {
				case tc.refused && err == nil:
					t.Fatal("Watch: got it opened, want an HTTP error")
				case !tc.refused && err != nil:
					t.Fatalf("Watch: got error %v, want none", err)
				case err == nil:
					defer w.Stop()
					events = w.ResultChan()
				}
			}
			made := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made"}}
			if _, err := cms.Create(ctx, made, metav1.CreateOptions{}); err != nil {
				t.Fatalf("first create: got error %v, want none", err)
			}
			if tc.deliver {
				select {
				case ev := <-events:
					if ev.Type != watch.Added {
						t.Fatalf("watch: got %s, want ADDED of the create", ev.Type)
					}
				case <-ctx.Done():
					t.Fatal("watch: got no event, want ADDED of the create")
				}
			}
			if _, err := cms.Create(ctx, made, metav1.CreateOptions{}); err == nil {
				t.Fatal("second create: got it stored, want 409 AlreadyExists")
			}
			log := s.Writes()
			w := log[len(log)-1]
			if w.Reason != string(metav1.StatusReasonAlreadyExists) || w.RVBefore != "1013" || w.Unserved != tc.want {
				t.Errorf("got reason %s, rv before %s, unserved %v; want AlreadyExists, 1013, %v", w.Reason, w.RVBefore, w.Unserved, tc.want)
			}
		})
	}
}
