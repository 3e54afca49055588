package verbatim

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	ua := func(s string) http.Header { return http.Header{"User-Agent": {s}} }
	it := func(method, url string, h http.Header) cassette.Interaction {
		return cassette.Interaction{Method: method, URL: url, RequestHeader: h, Code: 200, Replay: cassette.ReplayVerbatim}
	}
	tests := []struct {
		name  string
		files []*cassette.File
		want  Reproduction
		str   string
	}{
		{name: "reproducer - one client, every kind of request - pass",
			files: []*cassette.File{{Path: "a.yaml", Interactions: []cassette.Interaction{
				it("GET", "http://x/api?timeout=32s", ua("ctl/1")),
				it("GET", "http://x/apis/apps/v1/deployments?limit=500", ua("ctl/1")),
				it("GET", "http://x/apis/apps/v1/deployments?watch=true&resourceVersion=5", ua("ctl/1")),
				it("GET", "http://x/apis/apps/v1/namespaces/ns/deployments/web", ua("ctl/1")),
				it("", "http://x/apis/apps/v1/deployments?limit=500&continue=abc", ua("ctl/1")),
				it("GET", "http://x/healthz", ua("ctl/1")),
			}}},
			want: Reproduction{Clients: []string{"ctl/1"}, Requests: 6, First: "GET /api?timeout=32s",
				Kinds: []RequestCount{{"discovery", 1}, {"deployments.v1.apps LIST", 2}, {"deployments.v1.apps WATCH", 1}, {"deployments.v1.apps GET", 1}, {"GET /healthz", 1}}},
			str: "the requests of ctl/1: 6 (discovery 1, deployments.v1.apps LIST 2, deployments.v1.apps WATCH 1, deployments.v1.apps GET 1, GET /healthz 1), the first GET /api?timeout=32s"},
		{name: "reproducer - two files, two clients, one without a user agent - pass",
			files: []*cassette.File{
				{Path: "a.yaml", Interactions: []cassette.Interaction{it("GET", "http://x/api/v1/pods?limit=500", nil)}},
				{Path: "b.yaml", Interactions: []cassette.Interaction{it("GET", "http://x/api/v1/pods?watch=1", ua("ctl/2")), it("POST", "http://x/api/v1/pods", ua("ctl/2"))}},
			},
			want: Reproduction{Clients: []string{"(not recorded)", "ctl/2"}, Requests: 3, First: "GET /api/v1/pods?limit=500",
				Kinds: []RequestCount{{"pods.v1 LIST", 1}, {"pods.v1 WATCH", 1}, {"POST /api/v1/pods", 1}}},
			str: "the requests of (not recorded), ctl/2: 3 (pods.v1 LIST 1, pods.v1 WATCH 1, POST /api/v1/pods 1), the first GET /api/v1/pods?limit=500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Describe(tt.files...)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if s := got.String(); s != tt.str {
				t.Errorf("got %q, want %q", s, tt.str)
			}
		})
	}
}
