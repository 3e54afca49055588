package verbatim

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// Reproduction says what a reproducer replays for. A reproducer (see
// Replay) answers the requests of the client whose traffic it recorded,
// each with its recorded answer, and nothing else. Another client's
// requests (kubectl's LIST with limit=500, a watch without bookmarks) are
// not among them and get a 404.
type Reproduction struct {
	// Clients are the recorded User-Agent headers, in order of first
	// appearance; "(not recorded)" stands for requests without one.
	Clients []string `json:"clients"`
	// Requests counts the recorded requests.
	Requests int `json:"requests"`
	// Kinds counts them by what they ask, in order of first appearance.
	Kinds []RequestCount `json:"kinds"`
	// First is the first request: method and URI.
	First string `json:"first,omitempty"`
}

// RequestCount is how many requests of a reproducer ask one thing:
// "configmaps.v1 LIST", "pods.v1 WATCH", "discovery".
type RequestCount struct {
	// What the requests ask.
	What string `json:"what"`
	// N counts them.
	N int `json:"n"`
}

// Describe says what the reproducer files replay for.
func Describe(files ...*cassette.File) Reproduction {
	var r Reproduction
	seen := map[string]bool{}
	index := map[string]int{}
	for _, f := range files {
		for _, i := range f.Interactions {
			r.Requests++
			ua := i.RequestHeader.Get("User-Agent")
			if ua == "" {
				ua = "(not recorded)"
			}
			if !seen[ua] {
				seen[ua] = true
				r.Clients = append(r.Clients, ua)
			}
			method := i.Method
			if method == "" {
				method = "GET"
			}
			what := "other"
			if u, err := url.Parse(i.URL); err == nil {
				if r.First == "" {
					r.First = method + " " + u.RequestURI()
				}
				what = askedOf(method, u)
			}
			if n, ok := index[what]; ok {
				r.Kinds[n].N++
				continue
			}
			index[what] = len(r.Kinds)
			r.Kinds = append(r.Kinds, RequestCount{What: what, N: 1})
		}
	}
	return r
}

// askedOf names what a request asks: "<resource> LIST", "<resource>
// WATCH", "<resource> GET", "discovery", or its method and path.
func askedOf(method string, u *url.URL) string {
	q, isResource, err := history.ParseRequestInfo(u)
	switch {
	case err != nil || method != "GET":
		return method + " " + u.Path
	case !isResource && (u.Path == "/version" || u.Path == "/api" || u.Path == "/apis" || strings.HasPrefix(u.Path, "/api/") || strings.HasPrefix(u.Path, "/apis/")):
		return "discovery"
	case !isResource:
		return method + " " + u.Path
	case q.Watch:
		return q.Resource.String() + " WATCH"
	case q.Name != "":
		return q.Resource.String() + " GET"
	}
	return q.Resource.String() + " LIST"
}

// String tells the reproduction in one line: "the requests of lwreplay/v0.0.0
// (linux/amd64) kubernetes/$Format: 8 (discovery 2, configmaps.v1 LIST 3,
// configmaps.v1 WATCH 3), the first GET /api?timeout=32s".
func (r Reproduction) String() string {
	kinds := make([]string, len(r.Kinds))
	for i, k := range r.Kinds {
		kinds[i] = fmt.Sprintf("%s %d", k.What, k.N)
	}
	s := fmt.Sprintf("the requests of %s: %d (%s)", strings.Join(r.Clients, ", "), r.Requests, strings.Join(kinds, ", "))
	if r.First != "" {
		s += ", the first " + r.First
	}
	return s
}
