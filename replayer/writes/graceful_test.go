package writes

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestGracefulDelete checks a pod's DELETE against kube-apiserver's
// graceful deletion (k8s.io/apiserver v0.37.2 pkg/registry/rest/delete.go
// BeforeDelete; pkg/registry/generic/registry/store.go Delete,
// updateForGracefulDeletionAndFinalizers; k8s.io/kubernetes v1.37.2
// pkg/registry/core/pod/strategy.go CheckGracefulDelete).
func TestGracefulDelete(t *testing.T) {
	graceful := pods
	graceful.Graceful = true
	const spec = `"spec":{"nodeName":"n1","containers":[{"name":"c","image":"i"}]`
	in30 := testNow.Add(30 * time.Second).Format(time.RFC3339)
	st := mapState{
		"ns/run":   stored(t, pods, "5", "uid-r", `{"metadata":{"name":"run","namespace":"ns","generation":1},`+spec+`},"status":{"phase":"Running"}}`),
		"ns/tgp":   stored(t, pods, "6", "uid-t", `{"metadata":{"name":"tgp","namespace":"ns"},"spec":{"nodeName":"n1","terminationGracePeriodSeconds":10,"containers":[{"name":"c","image":"i"}]}}`),
		"ns/new":   stored(t, pods, "7", "uid-n", `{"metadata":{"name":"new","namespace":"ns"},"spec":{"containers":[{"name":"c","image":"i"}]}}`),
		"ns/done":  stored(t, pods, "8", "uid-d", `{"metadata":{"name":"done","namespace":"ns"},`+spec+`},"status":{"phase":"Succeeded"}}`),
		"ns/fin":   stored(t, pods, "9", "uid-f", `{"metadata":{"name":"fin","namespace":"ns","finalizers":["f"]},"spec":{"containers":[{"name":"c","image":"i"}]}}`),
		"ns/going": stored(t, pods, "10", "uid-g", `{"metadata":{"name":"going","namespace":"ns","generation":2,"deletionTimestamp":"`+in30+`","deletionGracePeriodSeconds":30},`+spec+`}}`),
		"ns/stuck": stored(t, pods, "11", "uid-s", `{"metadata":{"name":"stuck","namespace":"ns","deletionTimestamp":"2026-01-01T00:00:00Z","deletionGracePeriodSeconds":0},`+spec+`}}`),
	}
	grace := func(s int64) metav1.DeleteOptions { return metav1.DeleteOptions{GracePeriodSeconds: &s} }
	cases := []struct {
		name       string
		kind       Kind
		key        string
		opts       metav1.DeleteOptions
		dryRun     bool
		wantEvents []string // Before, then Event ("" when None)
		wantCode   int
		wantGrace  int64  // of the last object stored (or answered, when nothing is)
		wantAt     string // its deletionTimestamp ("" for none)
		wantGen    int64
		wantAnswer string // the answer's kind
	}{
		{name: "graceful delete - scheduled pod, spec's default grace - kept 30 s - pass", kind: graceful, key: "run",
			wantEvents: []string{"MODIFIED"}, wantCode: 200, wantGrace: 30, wantAt: in30, wantGen: 2, wantAnswer: "Pod"},
		{name: "graceful delete - the pod's terminationGracePeriodSeconds - kept 10 s - pass", kind: graceful, key: "tgp",
			wantEvents: []string{"MODIFIED"}, wantCode: 200, wantGrace: 10, wantAt: testNow.Add(10 * time.Second).Format(time.RFC3339), wantAnswer: "Pod"},
		{name: "graceful delete - gracePeriodSeconds 5 - kept 5 s - pass", kind: graceful, key: "run", opts: grace(5),
			wantEvents: []string{"MODIFIED"}, wantCode: 200, wantGrace: 5, wantAt: testNow.Add(5 * time.Second).Format(time.RFC3339), wantGen: 2, wantAnswer: "Pod"},
		{name: "graceful delete - negative grace - 1 s - pass", kind: graceful, key: "run", opts: grace(-5),
			wantEvents: []string{"MODIFIED"}, wantCode: 200, wantGrace: 1, wantAt: testNow.Add(time.Second).Format(time.RFC3339), wantGen: 2, wantAnswer: "Pod"},
		{name: "graceful delete - gracePeriodSeconds 0 - marked, then deleted - pass", kind: graceful, key: "run", opts: grace(0),
			wantEvents: []string{"MODIFIED", "DELETED"}, wantCode: 200, wantGrace: 0, wantAt: testNow.Format(time.RFC3339), wantGen: 2, wantAnswer: "Pod"},
		{name: "graceful delete - unscheduled pod - marked, then deleted - pass", kind: graceful, key: "new",
			wantEvents: []string{"MODIFIED", "DELETED"}, wantCode: 200, wantGrace: 0, wantAt: testNow.Format(time.RFC3339), wantAnswer: "Pod"},
		{name: "graceful delete - terminated pod - marked, then deleted - pass", kind: graceful, key: "done",
			wantEvents: []string{"MODIFIED", "DELETED"}, wantCode: 200, wantGrace: 0, wantAt: testNow.Format(time.RFC3339), wantAnswer: "Pod"},
		{name: "graceful delete - unscheduled pod with finalizers - kept - pass", kind: graceful, key: "fin",
			wantEvents: []string{"MODIFIED"}, wantCode: 200, wantGrace: 0, wantAt: testNow.Format(time.RFC3339), wantAnswer: "Pod"},
		{name: "graceful delete - a second DELETE, no grace - pending, nothing stored - pass", kind: graceful, key: "going",
			wantEvents: []string{""}, wantCode: 200, wantGrace: 30, wantAt: in30, wantGen: 2, wantAnswer: "Pod"},
		{name: "graceful delete - a second DELETE, longer grace - not lengthened - pass", kind: graceful, key: "going", opts: grace(60),
			wantEvents: []string{""}, wantCode: 200, wantGrace: 30, wantAt: in30, wantGen: 2, wantAnswer: "Pod"},
		{name: "graceful delete - a second DELETE, shorter grace - shortened - pass", kind: graceful, key: "going", opts: grace(10),
			wantEvents: []string{"MODIFIED"}, wantCode: 200, wantGrace: 10, wantAt: testNow.Add(10 * time.Second).Format(time.RFC3339), wantGen: 2, wantAnswer: "Pod"},
		{name: "graceful delete - a second DELETE, grace 0 - deleted - pass", kind: graceful, key: "going", opts: grace(0),
			wantEvents: []string{"MODIFIED", "DELETED"}, wantCode: 200, wantGrace: 0, wantAt: testNow.Format(time.RFC3339), wantGen: 2, wantAnswer: "Pod"},
		{name: "graceful delete - marked with no grace left - deleted now - pass", kind: graceful, key: "stuck",
			wantEvents: []string{"DELETED"}, wantCode: 200, wantGrace: 0, wantAt: "2026-01-01T00:00:00Z", wantAnswer: "Pod"},
		{name: "graceful delete - dry run - nothing stored - pass", kind: graceful, key: "run", dryRun: true,
			wantEvents: []string{""}, wantCode: 200, wantGrace: 30, wantAt: in30, wantGen: 2, wantAnswer: "Pod"},
		{name: "graceful delete - off - a scheduled pod deleted at once - pass", kind: pods, key: "run",
			wantEvents: []string{"DELETED"}, wantCode: 200, wantGen: 1, wantAnswer: "Pod"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Do(st, testEnv(), Request{Verb: Delete, Kind: tc.kind, Namespace: "ns", Name: tc.key, Delete: tc.opts, DryRun: tc.dryRun})
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			var got []string
			for _, c := range res.Before {
				got = append(got, string(c.Event))
			}
			got = append(got, string(res.Event))
			if len(got) != len(tc.wantEvents) || func() bool {
				for i := range got {
					if got[i] != tc.wantEvents[i] {
						return true
					}
				}
				return false
			}() {
				t.Errorf("events: got %v, want %v", got, tc.wantEvents)
			}
			if res.Code != tc.wantCode || res.Answer.GetKind() != tc.wantAnswer {
				t.Errorf("answer: got %d %s, want %d %s", res.Code, res.Answer.GetKind(), tc.wantCode, tc.wantAnswer)
			}
			last := res.Stored
			if last == nil {
				last = res.Answer
			}
			at := ""
			if dt := last.GetDeletionTimestamp(); dt != nil {
				at = dt.UTC().Format(time.RFC3339)
			}
			g := int64(-1)
			if p := last.GetDeletionGracePeriodSeconds(); p != nil {
				g = *p
			}
			if tc.wantAt != "" && (at != tc.wantAt || g != tc.wantGrace) {
				t.Errorf("deletion: got at %q grace %d, want at %q grace %d", at, g, tc.wantAt, tc.wantGrace)
			}
			if tc.wantAt == "" && at != "" {
				t.Errorf("deletion: got at %q, want none", at)
			}
			if gen := last.GetGeneration(); gen != tc.wantGen {
				t.Errorf("generation: got %d, want %d", gen, tc.wantGen)
			}
			if len(res.Before) == 1 && res.Before[0].Stored.GetResourceVersion() != "101" || len(res.Before) == 1 && res.Stored.GetResourceVersion() != "102" {
				t.Errorf("RVs: got mark %s, delete %s, want 101, 102", res.Before[0].Stored.GetResourceVersion(), res.Stored.GetResourceVersion())
			}
		})
	}
}
