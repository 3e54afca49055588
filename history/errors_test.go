package history_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// loadAndBuild loads cassette files and builds their history.
func loadAndBuild(paths ...string) (*history.History, error) {
	files, err := cassette.LoadAll(paths...)
	if err != nil {
		return nil, err
	}
	return history.Build(files...)
}

// checkBuildErr checks that err wraps sentinel and names where.
func checkBuildErr(t *testing.T, err, sentinel error, where string) {
	t.Helper()
	switch {
	case err == nil:
		t.Fatalf("got no error, want %v at %q", sentinel, where)
	case !errors.Is(err, sentinel):
		t.Errorf("got error %q, want it to wrap %q", err, sentinel)
	case !strings.Contains(err.Error(), where):
		t.Errorf("got error %q, want it to name %q", err, where)
	}
}

// malformedDir holds the malformed cassettes shared across the project
// (testdata/README.md lists them).
const malformedDir = "../testdata/malformed/"

// malformedFixture is a file of malformedDir, the sentinel its refusal
// wraps and where the error must point.
type malformedFixture struct {
	name     string
	file     string
	sentinel error
	where    string
}

// malformedFixtures holds every file of malformedDir.
var malformedFixtures = []malformedFixture{
	{"bad YAML - fail", "bad_yaml.yaml", cassette.ErrFormat, "malformed/bad_yaml.yaml: interaction 0 (line 4): yaml:"},
	{"unparsable frame - fail", "bad_frame.yaml", cassette.ErrFormat, "malformed/bad_frame.yaml: interaction 1: event 2: unparsable frame"},
	{"RV backwards in a stream - fail", "rv_backwards.yaml", history.ErrContradiction, "malformed/rv_backwards.yaml: interaction 1: event 1: resourceVersion 11 after 12"},
	{"MODIFIED of an unknown key - fail", "modified_unknown.yaml", history.ErrContradiction, "malformed/modified_unknown.yaml: interaction 1: event 1: MODIFIED of unknown key ns/zz"},
	{"broken continue chain - fail", "broken_continue.yaml", history.ErrContradiction, "malformed/broken_continue.yaml: interaction 1: continue token"},
	{"list without resourceVersion - fail", "list_no_rv.yaml", cassette.ErrFormat, "malformed/list_no_rv.yaml: interaction 0: list has no metadata.resourceVersion"},
	{"newer lwreplay format - fail", "newer_format.yaml", cassette.ErrFormat, "malformed/newer_format.yaml: interaction 1 (line 12): format version 2 is newer than this lwreplay reads (1)"},
	{"go-vcr format version 1 - fail", "old_vcr_version.yaml", cassette.ErrFormat, "malformed/old_vcr_version.yaml: go-vcr cassette format version 1; lwreplay reads version 2"},
	{"file cut inside its last watch - fail", "truncated.yaml", cassette.ErrFormat, "malformed/truncated.yaml: interaction 3 (line 83): response has no status code"},
	{"real file cut in the middle of a watch frame - fail", "cut_body.yaml", cassette.ErrFormat, "malformed/cut_body.yaml: interaction 1 (line 39): response has no status code"},
	{"go-vcr file of unrelated HTTP traffic - fail", "not_kubernetes.yaml", history.ErrNoTraffic, "malformed/not_kubernetes.yaml: 4 interactions, none a LIST or WATCH of a Kubernetes resource answered with data"},
}

func TestBuild_MalformedFixtures(t *testing.T) {
	for _, tt := range malformedFixtures {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadAndBuild(malformedDir + tt.file)
			checkBuildErr(t, err, tt.sentinel, tt.where)
		})
	}
	t.Run("missing file - fail", func(t *testing.T) {
		_, err := loadAndBuild(malformedDir + "none.yaml")
		checkBuildErr(t, err, cassette.ErrFormat, "none.yaml")
	})
}

func TestBuild_Malformed(t *testing.T) {
	const wl = "sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
	l10 := list("resourceVersion=0", "10", "", cm("a", "5"))
	tests := []struct {
		name     string
		ints     []cassette.Interaction
		sentinel error
		where    string
	}{
		{"ADDED of an existing key - fail",
			[]cassette.Interaction{l10, watch("resourceVersion=10", ev("ADDED", cm("a", "11")))},
			history.ErrContradiction, "m.yaml: interaction 1: event 0: ADDED of existing key ns/a"},
		{"DELETED of an unknown key - fail",
			[]cassette.Interaction{l10, watch("resourceVersion=10", ev("DELETED", cm("q", "11")))},
			history.ErrContradiction, "m.yaml: interaction 1: event 0: DELETED of unknown key ns/q"},
		{"equal RVs in a stream - fail",
			[]cassette.Interaction{l10, watch("resourceVersion=10", ev("ADDED", cm("b", "11")), ev("ADDED", cm("c", "11")))},
			history.ErrContradiction, "m.yaml: interaction 1: event 1: resourceVersion 11 after 11"},
		{"event not after the watch's RV - fail",
			[]cassette.Interaction{l10, watch("resourceVersion=10", ev("ADDED", cm("b", "9")))},
			history.ErrContradiction, "m.yaml: interaction 1: event 0: resourceVersion 9 is not after the watch's resourceVersion 10"},
		{"event before initial-events-end - fail",
			[]cassette.Interaction{watch(wl, ev("ADDED", cm("a", "5")), ev("MODIFIED", cm("a", "6")))},
			history.ErrContradiction, "m.yaml: interaction 0: event 1: MODIFIED before the initial-events-end bookmark"},
		{"unknown event type - fail",
			[]cassette.Interaction{l10, watch("resourceVersion=10", ev("CHANGED", cm("a", "11")))},
			cassette.ErrFormat, `m.yaml: interaction 1: event 0: unknown event type "CHANGED"`},
		{"bookmark without RV - fail",
			[]cassette.Interaction{l10, watch("resourceVersion=10", bookmark("", false))},
			cassette.ErrFormat, "m.yaml: interaction 1: event 0: bookmark has no resourceVersion"},
		{"event object without RV - fail",
			[]cassette.Interaction{l10, watch("resourceVersion=10", ev("MODIFIED", cm("a", "")))},
			cassette.ErrFormat, "m.yaml: interaction 1: event 0: MODIFIED object has no resourceVersion"},
		{"event without object - fail",
			[]cassette.Interaction{l10, watch("resourceVersion=10", `{"type":"ADDED"}`)},
			cassette.ErrFormat, "m.yaml: interaction 1: event 0: object"},
		{"list item without name - fail",
			[]cassette.Interaction{list("resourceVersion=0", "10", "", cm("a", "5"), `{"metadata":{"namespace":"ns"}}`)},
			cassette.ErrFormat, "m.yaml: interaction 0: item 1: object has no metadata.name"},
		{"list body not JSON - fail",
			[]cassette.Interaction{get("/api/v1/configmaps", "<html>")},
			cassette.ErrFormat, "m.yaml: interaction 0: list body"},
		{"list item newer than the list - fail",
			[]cassette.Interaction{list("resourceVersion=0", "10", "", cm("a", "11"))},
			history.ErrContradiction, "m.yaml: interaction 0: ns/a has resourceVersion 11, newer than the list's 10"},
		{"key listed twice - fail",
			[]cassette.Interaction{list("resourceVersion=0", "10", "", cm("a", "5"), cm("a", "6"))},
			history.ErrContradiction, "m.yaml: interaction 0: ns/a listed twice"},
		{"synthetic ADDED twice - fail",
			[]cassette.Interaction{watch("resourceVersion=0", ev("ADDED", cm("a", "5")), ev("ADDED", cm("a", "6")))},
			history.ErrContradiction, "m.yaml: interaction 0: event 1: ADDED of existing key ns/a"},
		{"page RV differs from the chain's - fail",
			[]cassette.Interaction{list("limit=1", "10", "t1", cm("a", "5")), list("limit=1&continue=t1", "11", "", cm("b", "6"))},
			history.ErrContradiction, "m.yaml: interaction 1: page resourceVersion 11 differs from the chain's 10"},
		{"chain never completed - fail",
			[]cassette.Interaction{list("limit=1", "10", "t1", cm("a", "5"))},
			history.ErrContradiction, "m.yaml: interaction 0: configmaps.v1: no complete list or watch was recorded"},
		{"opaque watch from nothing before any list - fail",
			[]cassette.Interaction{watch("", ev("MODIFIED", cm("a", "x")))},
			history.ErrContradiction, `m.yaml: interaction 0: event 0: watch from resourceVersion "" before any list`},
		{"bad query - fail",
			[]cassette.Interaction{get("/api/v1/configmaps?limit=-1", "{}")},
			cassette.ErrFormat, `m.yaml: interaction 0: limit="-1"`},
		{"bad URL - fail",
			[]cassette.Interaction{{URL: "http://h/%zz", Code: 200}},
			cassette.ErrFormat, "m.yaml: interaction 0: url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := history.Build(file("m.yaml", tt.ints...))
			checkBuildErr(t, err, tt.sentinel, tt.where)
		})
	}
}
