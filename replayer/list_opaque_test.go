package replayer

import (
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// opaqueHistory is a history whose resourceVersions are not numbers: a
// list of three secrets at "r3", then a watch with one change at "r4".
func opaqueHistory(t *testing.T) *history.History {
	t.Helper()
	item := func(name, rv string) string {
		return `{"metadata":{"name":"` + name + `","namespace":"ns","resourceVersion":"` + rv + `"}}`
	}
	f := cassette.New()
	f.Path = "opaque.yaml"
	f.Add(cassette.Interaction{Method: "GET", URL: synth.Host + "/api/v1/secrets", Code: 200,
		Body: []byte(`{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"r3"},"items":[` +
			item("a", "r1") + "," + item("b", "r2") + "," + item("c", "r3") + `]}`)})
	f.Add(cassette.Interaction{Method: "GET", URL: synth.Host + "/api/v1/secrets?watch=true&resourceVersion=r3", Code: 200,
		Body: []byte(`{"type":"MODIFIED","object":{"kind":"Secret","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"r4"}}}` + "\n")})
	h, err := history.Build(f)
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	return h
}

func TestListOpaqueRVs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "list opaque RVs - paginated chain - pass", steps: []step{
			{target: "/api/v1/secrets?limit=2", code: 200, rv: "r3", keys: []string{"ns/a", "ns/b"}, more: true},
			{target: "/api/v1/secrets?limit=2&continue=+", code: 200, rv: "r3", keys: []string{"ns/c"}},
		}},
		{name: "list opaque RVs - NotOlderThan then Exact - pass", steps: []step{
			{target: "/api/v1/secrets?resourceVersion=r4&resourceVersionMatch=NotOlderThan", code: 200, rv: "r4"},
			{target: "/api/v1/secrets?resourceVersion=r3&resourceVersionMatch=Exact&limit=1", code: 200, rv: "r3", keys: []string{"ns/a"}, more: true},
			{target: "/api/v1/secrets?limit=5&continue=+", code: 200, rv: "r3", keys: []string{"ns/b", "ns/c"}},
		}},
		{name: "list opaque RVs - unknown RV - fail", steps: []step{
			{target: "/api/v1/secrets?resourceVersion=zz", code: 400, msg: `invalid resource version: resourceVersion: Invalid value: "zz": not a resourceVersion of this history`},
		}},
		{name: "list opaque RVs - token with unknown RV - fail", steps: []step{
			{target: "/api/v1/secrets?limit=2&continue=" + continueToken{rv: "zz", start: "/ns/a"}.encode(), code: 400, msg: "incorrect encoded start resourceVersion"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(opaqueHistory(t))
			s.opts.tooLargeWait = 0
			runSteps(t, s, tt.steps)
		})
	}
}
