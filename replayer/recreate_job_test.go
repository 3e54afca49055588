package replayer

import (
	"encoding/json"
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

// TestWithUIDOf checks that an object made again under a new UID carries
// it, and that a Job's generated selector and template labels follow it
// as kube-apiserver's Job strategy makes them, a manual selector kept.
func TestWithUIDOf(t *testing.T) {
	jobs := history.Resource{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true}
	pods := history.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	job := func(manual string) string {
		return `{"metadata":{"name":"batch","namespace":"ns","uid":"old"},"spec":{` + manual +
			`"selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"old"}},` +
			`"template":{"metadata":{"labels":{"batch.kubernetes.io/controller-uid":"old","controller-uid":"old","job-name":"batch"}}}},` +
			`"status":{"succeeded":4}}`
	}
	tests := []struct {
		name       string
		res        history.Resource
		raw        string
		created    bool
		wantSel    string // the selector's controller-uid after
		wantTmpl   string // the template's controller-uid after
		wantStatus bool   // whether the status is left
	}{
		{"with uid of - job created, generated selector - relabelled, no status - pass", jobs, job(""), true, "new", "new", false},
		{"with uid of - job's later change, generated selector - relabelled, status kept - pass", jobs, job(""), false, "new", "new", true},
		{"with uid of - job created, manualSelector - labels kept, no status - pass", jobs, job(`"manualSelector":true,`), true, "old", "old", false},
		{"with uid of - pod with a job's labels - labels and status kept - pass", pods, job(""), true, "old", "old", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj, _, _, err := history.ParseObject([]byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			got, err := withUIDOf(tc.res, obj, "new", tc.created)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			var j struct {
				Metadata struct {
					UID string `json:"uid"`
				} `json:"metadata"`
				Spec struct {
					Selector struct {
						MatchLabels map[string]string `json:"matchLabels"`
					} `json:"selector"`
					Template struct {
						Metadata struct {
							Labels map[string]string `json:"labels"`
						} `json:"metadata"`
					} `json:"template"`
				} `json:"spec"`
				Status map[string]any `json:"status"`
			}
			if err := json.Unmarshal(got.Raw, &j); err != nil {
				t.Fatal(err)
			}
			if got.UID != "new" || j.Metadata.UID != "new" {
				t.Errorf("got uid %q (JSON %q), want new", got.UID, j.Metadata.UID)
			}
			if s := j.Spec.Selector.MatchLabels["batch.kubernetes.io/controller-uid"]; s != tc.wantSel {
				t.Errorf("got selector controller-uid %q, want %q", s, tc.wantSel)
			}
			if got := j.Status != nil; got != tc.wantStatus {
				t.Errorf("got status left %v, want %v", got, tc.wantStatus)
			}
			ls := j.Spec.Template.Metadata.Labels
			if ls["batch.kubernetes.io/controller-uid"] != tc.wantTmpl || ls["controller-uid"] != tc.wantTmpl || ls["job-name"] != "batch" {
				t.Errorf("got template labels %v, want controller-uid %q both, job-name batch", ls, tc.wantTmpl)
			}
		})
	}
}
