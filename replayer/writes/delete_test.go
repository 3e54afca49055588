package writes

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestDelete checks the delete rules.
func TestDelete(t *testing.T) {
	st := mapState{
		"ns/c":  stored(t, configmaps, "5", "uid-c", `{"metadata":{"name":"c","namespace":"ns"}}`),
		"ns/d":  stored(t, deployments, "6", "uid-d", `{"metadata":{"name":"d","namespace":"ns","generation":2},"spec":{"replicas":1}}`),
		"ns/w":  stored(t, widgets, "7", "uid-w", `{"metadata":{"name":"w","namespace":"ns","generation":1,"finalizers":["example.com/f"]}}`),
		"ns/wd": stored(t, widgets, "8", "uid-wd", `{"metadata":{"name":"wd","namespace":"ns","generation":2,"finalizers":["example.com/f"],"deletionTimestamp":"2026-01-01T00:00:00Z","deletionGracePeriodSeconds":0}}`),
	}
	foreground, orphan := metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan
	no := false
	wrongUID, wrongRV := types.UID("other"), "1"
	cases := []struct {
		name, key string
		kind      Kind
		opts      metav1.DeleteOptions
		body      string
		dryRun    bool
		code      int32
		reason    string
		message   string
		check     func(t *testing.T, res Result)
	}{
		// store.go:1473-1486: configmaps answer a Status Success; the DELETED event carries the object at a new RV.
		{name: "delete - configmap - pass", key: "c", kind: configmaps,
			check: func(t *testing.T, res Result) {
				wantDeleteStatus(t, res, "c", "", "configmaps", "uid-c")
				if res.Event != Deleted || res.Stored.GetResourceVersion() != "101" {
					t.Errorf("got %q at %q, want DELETED at 101", res.Event, res.Stored.GetResourceVersion())
				}
			}},
		{name: "delete - dry run - pass", key: "c", kind: configmaps, dryRun: true,
			check: func(t *testing.T, res Result) {
				wantDeleteStatus(t, res, "c", "", "configmaps", "uid-c")
				if res.Event != None || res.Stored != nil {
					t.Errorf("got %q %v, want nothing stored", res.Event, res.Stored)
				}
			}},
		// store.go:1083-1101 markAsDeleting; handlers/delete.go:188 answers 200.
		{name: "delete - widget with finalizers is marked - pass", key: "w", kind: widgets,
			check: func(t *testing.T, res Result) {
				wantMeta(t, res, 200, Modified, "w", "101", "uid-w", 2)
				if dt := res.Stored.GetDeletionTimestamp(); dt == nil || !dt.Time.Equal(testNow) || *res.Stored.GetDeletionGracePeriodSeconds() != 0 {
					t.Errorf("got deletionTimestamp %v, want %v with grace 0", dt, testNow)
				}
			}},
		{name: "delete - widget already being deleted - pass", key: "wd", kind: widgets,
			check: func(t *testing.T, res Result) { wantMeta(t, res, 200, None, "wd", "8", "uid-wd", 2) }},
		// store.go:1064-1069: Foreground adds foregroundDeletion; OrphanDependents=false answers 202.
		{name: "delete - deployment foreground - pass", key: "d", kind: deployments, opts: metav1.DeleteOptions{PropagationPolicy: &foreground},
			check: func(t *testing.T, res Result) {
				wantMeta(t, res, 200, Modified, "d", "101", "uid-d", 3)
				if f := res.Stored.GetFinalizers(); len(f) != 1 || f[0] != metav1.FinalizerDeleteDependents {
					t.Errorf("got finalizers %v, want [foregroundDeletion]", f)
				}
			}},
		{name: "delete - body orphan policy - pass", key: "c", kind: configmaps, body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan"}`, opts: metav1.DeleteOptions{PropagationPolicy: &foreground},
			check: func(t *testing.T, res Result) {
				if f := res.Stored.GetFinalizers(); len(f) != 1 || f[0] != metav1.FinalizerOrphanDependents {
					t.Errorf("got finalizers %v, want [orphan]", f)
				}
			}},
		{name: "delete - orphanDependents false with finalizers - pass", key: "w", kind: widgets, opts: metav1.DeleteOptions{OrphanDependents: &no},
			check: func(t *testing.T, res Result) { wantMeta(t, res, 202, Modified, "w", "101", "uid-w", 2) }},
		{name: "delete - missing - fail", key: "gone", kind: widgets,
			code: 404, reason: "NotFound", message: `widgets.example.com "gone" not found`},
		// rest/delete.go:86-89: the kind names the resource.
		{name: "delete - uid precondition - fail", key: "c", kind: configmaps, opts: metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrongUID}},
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on ConfigMap "c": the UID in the precondition (other) does not match the UID in record (uid-c). The object might have been deleted and then recreated`},
		{name: "delete - resourceVersion precondition - fail", key: "d", kind: deployments, opts: metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &wrongRV}},
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on Deployment.apps "d": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (6). The object might have been modified`},
		{name: "delete - both orphanDependents and a policy - fail", key: "c", kind: configmaps, opts: metav1.DeleteOptions{OrphanDependents: &no, PropagationPolicy: &orphan},
			code: 422, reason: "Invalid"},
		{name: "delete - bad body - fail", key: "c", kind: configmaps, body: `{`, code: 400, reason: "BadRequest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Do(st, testEnv(), Request{Verb: Delete, Kind: c.kind, Namespace: "ns", Name: c.key, Delete: c.opts, Body: []byte(c.body), DryRun: c.dryRun})
			verify(t, res, err, c.code, c.reason, c.message, c.check)
		})
	}
}

// wantDeleteStatus checks a delete answered 200 with the Status Success
// finalizeDelete makes.
func wantDeleteStatus(t *testing.T, res Result, name, group, kind, uid string) {
	t.Helper()
	a := res.Answer
	if res.Code != 200 || a == nil || a.GetKind() != "Status" || a.Object["status"] != metav1.StatusSuccess {
		t.Fatalf("got %d %v, want 200 and a Status Success", res.Code, a)
	}
	d, _ := a.Object["details"].(map[string]any)
	if d["name"] != name || d["kind"] != kind || d["uid"] != uid || (group != "" && d["group"] != group) {
		t.Errorf("got details %v, want name %s group %q kind %s uid %s", d, name, group, kind, uid)
	}
}
