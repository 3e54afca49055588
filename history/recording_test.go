package history_test

import (
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

func TestBuild_OneRecording(t *testing.T) {
	l10 := at(list("resourceVersion=0", "10", "", cm("a", "5")), 0)
	w11 := at(watch("resourceVersion=10", ev("MODIFIED", cm("a", "11"))), 1)
	tests := []struct {
		name    string
		files   []*cassette.File
		wantErr string // "" for success
	}{
		{"rotations - first part and the next - pass",
			[]*cassette.File{file("d/x.yaml", l10), file("d/x_001.yaml", w11)}, ""},
		{"rotations - given out of order - pass",
			[]*cassette.File{file("d/x_001.yaml", w11), file("d/x.yaml", l10)}, ""},
		{"rotations - empty last part - pass",
			[]*cassette.File{file("d/x.yaml", l10, w11), file("d/x_001.yaml")}, ""},
		{"unrelated files - fail",
			[]*cassette.File{file("d/a.yaml", l10), file("d/b.yaml", w11)},
			"the files hold 2 recordings: (1) d/a.yaml; (2) d/b.yaml; files load as one recording only"},
		{"rotation named, its first part not given - fail",
			[]*cassette.File{file("d/a.yaml", l10), file("d/x_001.yaml", w11)},
			"(2) d/x_001.yaml (named as the part after d/x.yaml, which is not among the files)"},
		{"rotation named, a part missing - fail",
			[]*cassette.File{file("d/x.yaml", l10), file("d/x_002.yaml", w11)},
			"(2) d/x_002.yaml (named as the part after d/x_001.yaml, which is not among the files)"},
		{"rotation named, recorded before the first part ended - fail",
			[]*cassette.File{file("d/x.yaml", at(l10, 10)), file("d/x_001.yaml", w11)},
			"(2) d/x_001.yaml (named as the part after d/x.yaml, but it does not continue it: an answer of it ended at 2026-01-02T03:04:07Z, before the last answer of d/x.yaml ended (2026-01-02T03:04:16Z))"},
		{"rotation named, untimed - fail",
			[]*cassette.File{file("d/x.yaml", l10), file("d/x_001.yaml", watch("resourceVersion=10", ev("MODIFIED", cm("a", "11"))))},
			"(2) d/x_001.yaml (named as the part after d/x.yaml, but it has no recorded timing to show that it continues d/x.yaml)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := history.Build(tt.files...)
			if tt.wantErr != "" {
				checkBuildErr(t, err, cassette.ErrNotOneRecording, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("Build: got error %v, want none", err)
			}
			if got := events(h.Logs[0].Events); got != "MODIFIED ns/a@11" {
				t.Errorf("events: got %q, want %q", got, "MODIFIED ns/a@11")
			}
			if got := h.Files[0]; got != "d/x.yaml" {
				t.Errorf("first file: got %s, want d/x.yaml", got)
			}
		})
	}
}

func TestBuild_NoTraffic(t *testing.T) {
	page := cassette.Interaction{Method: "GET", URL: "https://example.com/index.html", Code: 200, Body: []byte("<html></html>")}
	api := cassette.Interaction{Method: "GET", URL: "https://api.example.com/users?limit=5", Code: 200, Body: []byte(`{"users":[]}`)}
	forbidden := cassette.Interaction{Method: "GET", URL: host + "/api/v1/secrets?resourceVersion=0", Code: 403,
		Body: []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","message":"no","code":403}`)}
	tests := []struct {
		name  string
		files []*cassette.File
		where string
	}{
		{"unrelated HTTP traffic - fail", []*cassette.File{file("web.yaml", page, api)},
			"web.yaml: 2 interactions, none a LIST or WATCH of a Kubernetes resource answered with data (the first: GET https://example.com/index.html)"},
		{"discovery only - fail", []*cassette.File{file("disc.yaml", get("/api", `{"versions":["v1"]}`))},
			"disc.yaml: 1 interaction, none a LIST or WATCH"},
		{"only error answers - fail", []*cassette.File{file("denied.yaml", forbidden)},
			"denied.yaml: 1 interaction, none a LIST or WATCH of a Kubernetes resource answered with data (the first: GET https://kube.example/api/v1/secrets?resourceVersion=0); 1 answered a list or watch request with an error (the first: denied.yaml: interaction 0: 403 Forbidden)"},
		{"no interactions - fail", []*cassette.File{file("empty.yaml")}, "empty.yaml: no interactions"},
		{"no file - fail", nil, "no cassette file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := history.Build(tt.files...)
			checkBuildErr(t, err, history.ErrNoTraffic, tt.where)
		})
	}
}
