package recorder

import (
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

const (
	listURI      = "/api/v1/configmaps?limit=500&resourceVersion=0"
	watchURI     = "/api/v1/configmaps?allowWatchBookmarks=true&resourceVersion=10&watch=true"
	watchListURI = "/api/v1/configmaps?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true"
)

var status410 = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 2 (7)","reason":"Expired","code":410}`

// readAll reads a response to its end with reads of bufSize bytes and
// closes it.
func readAll(t *testing.T, resp *http.Response, bufSize int) string {
	t.Helper()
	var out strings.Builder
	buf := make([]byte, bufSize)
	for {
		n, err := resp.Body.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			break
		}
	}
	resp.Body.Close()
	return out.String()
}

func TestRecordHandMade(t *testing.T) {
	t.Parallel()
	tricky := fixture(t, "tricky_frames.json")
	list := cmList("10", cmItem("ns", "a", "8", "}{"), cmItem("ns", "b", "9", `"q"`))
	tests := []struct {
		name    string
		answers map[string]answer
		client  func(t *testing.T, rt http.RoundTripper)
		want    Stats
		check   func(t *testing.T, its []cassette.Interaction, h *history.History)
		// noLog, when set, is what history.Build's ErrNoTraffic says of a
		// recording with no list or watch data (check then gets no history)
		noLog string
	}{
		{
			name:    "LIST page - read to its end in pieces - recorded byte for byte - pass",
			answers: map[string]answer{listURI: {code: 200, parts: chunk(list, 17)}},
			client:  func(t *testing.T, rt http.RoundTripper) { readAll(t, get(t, rt, listURI, nil), 5) },
			want:    Stats{Interactions: 1, ListPages: 1, Objects: 2, Bytes: int64(len(list))},
			check: func(t *testing.T, its []cassette.Interaction, h *history.History) {
				if got := string(its[0].Body); got != list {
					t.Errorf("list body: got %q, want %q", got, list)
				}
				if got := len(h.Logs[0].Initial); got != 2 {
					t.Errorf("initial objects: got %d, want 2", got)
				}
			},
		},
		{
			name: "watch - cut with a partial frame - recorded up to the last complete frame - pass",
			answers: map[string]answer{listURI: {code: 200, parts: []string{list}}, watchURI: {code: 200, end: io.ErrUnexpectedEOF, parts: []string{
				event("MODIFIED", cmObject("ns", "a", "11", "x")), event("ADDED", cmObject("ns", "c", "12", "y")), `{"type":"DELETED","object":{"kind":"Conf`}}},
			client: func(t *testing.T, rt http.RoundTripper) {
				readAll(t, get(t, rt, listURI, nil), 512)
				readAll(t, get(t, rt, watchURI, nil), 512)
			},
			want: Stats{Interactions: 2, ListPages: 1, Watches: 1, Objects: 2, Events: 2, PartialFrames: 1},
			check: func(t *testing.T, its []cassette.Interaction, h *history.History) {
				if got := len(its[1].FrameOffsets); got != 2 {
					t.Errorf("frame offsets: got %d, want 2", got)
				}
				if got := strings.Count(string(its[1].Body), "\n"); got != 2 {
					t.Errorf("frames in body: got %d, want 2", got)
				}
				if got := len(h.Logs[0].Events); got != 2 {
					t.Errorf("events: got %d, want 2", got)
				}
				if got := its[1].StreamEnd; got != cassette.EndError {
					t.Errorf("stream end: got %q, want %q", got, cassette.EndError)
				}
			},
		},
		{
			name: "watch - ERROR event - recorded and counted - pass",
			answers: map[string]answer{watchURI: {code: 200, parts: []string{
				event("ADDED", cmObject("ns", "a", "11", "x")), event("ERROR", status410)}}},
			client: func(t *testing.T, rt http.RoundTripper) { readAll(t, get(t, rt, watchURI, nil), 64) },
			want:   Stats{Interactions: 1, Watches: 1, Events: 1, Errors: 1},
			check: func(t *testing.T, its []cassette.Interaction, h *history.History) {
				if got := h.Logs[0].Errors; len(got) != 1 || got[0].Code != 410 || got[0].Reason != "Expired" {
					t.Errorf("history errors: got %+v, want one 410 Expired", got)
				}
				if got := its[0].StreamEnd; got != cassette.EndEOF {
					t.Errorf("stream end: got %q, want %q", got, cassette.EndEOF)
				}
			},
		},
		{
			name:    "non-2xx answer - 410 to a LIST - recorded and counted - pass",
			answers: map[string]answer{listURI: {code: 410, parts: []string{status410}}},
			client:  func(t *testing.T, rt http.RoundTripper) { readAll(t, get(t, rt, listURI, nil), 64) },
			want:    Stats{Interactions: 1, Errors: 1},
			check: func(t *testing.T, its []cassette.Interaction, h *history.History) {
				if its[0].Code != 410 || string(its[0].Body) != status410 {
					t.Errorf("interaction: got %d %q, want 410 %q", its[0].Code, its[0].Body, status410)
				}
			},
			noLog: "rec.yaml: interaction 0: 410 Expired)",
		},
		{
			name: "watch - client closes mid-stream - complete frames kept - pass",
			answers: map[string]answer{watchURI: {code: 200, parts: []string{
				event("ADDED", cmObject("ns", "a", "11", "x")), event("ADDED", cmObject("ns", "b", "12", "x")), event("ADDED", cmObject("ns", "c", "13", "x"))}}},
			client: func(t *testing.T, rt http.RoundTripper) {
				resp := get(t, rt, watchURI, nil)
				readN(t, resp.Body, 2, 4096)
				resp.Body.Close()
			},
			want: Stats{Interactions: 1, Watches: 1, Events: 2},
			check: func(t *testing.T, its []cassette.Interaction, h *history.History) {
				if got := len(h.Logs[0].Events); got != 2 {
					t.Errorf("events: got %d, want 2", got)
				}
				if got := its[0].StreamEnd; got != cassette.EndClosed {
					t.Errorf("stream end: got %q, want %q", got, cassette.EndClosed)
				}
			},
		},
		{
			name: "watch - WatchList initial events then live events - objects and events counted - pass",
			answers: map[string]answer{watchListURI: {code: 200, parts: []string{
				event("ADDED", cmObject("ns", "a", "8", "x")), event("ADDED", cmObject("ns", "b", "9", "x")), bookmark("10", true),
				event("MODIFIED", cmObject("ns", "a", "11", "y")), bookmark("11", false)}}},
			client: func(t *testing.T, rt http.RoundTripper) { readAll(t, get(t, rt, watchListURI, nil), 100) },
			want:   Stats{Interactions: 1, Watches: 1, Objects: 2, Events: 1, Bookmarks: 2},
			check: func(t *testing.T, its []cassette.Interaction, h *history.History) {
				if l := h.Logs[0]; l.StartRV != "10" || len(l.Initial) != 2 || len(l.Events) != 1 {
					t.Errorf("history: got start %s, %d initial, %d events, want 10, 2, 1", l.StartRV, len(l.Initial), len(l.Events))
				}
			},
		},
		{
			name:    "watch - tricky frames in 1-byte reads - kept byte for byte - pass",
			answers: map[string]answer{watchURI: {code: 200, parts: chunk(tricky, 1)}},
			client:  func(t *testing.T, rt http.RoundTripper) { readAll(t, get(t, rt, watchURI, nil), 3) },
			want:    Stats{Interactions: 1, Watches: 1, Events: 4, Bookmarks: 1, Bytes: int64(len(tricky))},
			check: func(t *testing.T, its []cassette.Interaction, h *history.History) {
				want := strings.Join(documents(t, tricky), "\n") + "\n"
				if got := string(its[0].Body); got != want {
					t.Errorf("watch body: got %q, want %q", got, want)
				}
				if got := logSummary(h.Logs[0]); got[len(got)-1] != "final ns/a}{@13" {
					t.Errorf("final state: got %q, want %q", got[len(got)-1], "final ns/a}{@13")
				}
			},
		},
		{
			name:    "LIST page - gzipped as the client asked - recorded decoded - pass",
			answers: map[string]answer{listURI: {code: 200, parts: []string{gzipped(list)}, header: http.Header{"Content-Type": {"application/json"}, "Content-Encoding": {"gzip"}}}},
			client: func(t *testing.T, rt http.RoundTripper) {
				readAll(t, get(t, rt, listURI, http.Header{"Accept-Encoding": {"gzip"}}), 64)
			},
			want: Stats{Interactions: 1, ListPages: 1, Objects: 2},
			check: func(t *testing.T, its []cassette.Interaction, h *history.History) {
				if got := string(its[0].Body); got != list || its[0].Header.Get("Content-Encoding") != "" {
					t.Errorf("list: got %q with Content-Encoding %q, want %q without", got, its[0].Header.Get("Content-Encoding"), list)
				}
			},
		},
		{
			name:    "request - list options that do not parse - not recorded - pass",
			answers: map[string]answer{"/api/v1/configmaps?watch=yes": {code: 400, parts: []string{`{"kind":"Status","code":400}`}}},
			client: func(t *testing.T, rt http.RoundTripper) {
				readAll(t, get(t, rt, "/api/v1/configmaps?watch=yes", nil), 64)
			},
			want: Stats{},
			check: func(t *testing.T, its []cassette.Interaction, h *history.History) {
				if len(its) != 0 {
					t.Errorf("interactions: got %d, want 0", len(its))
				}
			},
			noLog: "no interactions",
		},
		{
			name:    "answer - closed before its end, not a whole document - not recorded - pass",
			answers: map[string]answer{listURI: {code: 200, parts: chunk(list, 20)}},
			client: func(t *testing.T, rt http.RoundTripper) {
				resp := get(t, rt, listURI, nil)
				readN(t, resp.Body, 2, 64)
				resp.Body.Close()
			},
			want: Stats{Bytes: 40},
			check: func(t *testing.T, its []cassette.Interaction, h *history.History) {
				if len(its) != 0 {
					t.Errorf("interactions: got %d, want 0", len(its))
				}
			},
			noLog: "no interactions",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rec.yaml")
			rec, err := New(path, WithFlushInterval(0))
			if err != nil {
				t.Fatalf("New: got error %v, want none", err)
			}
			up := &upstream{answers: tt.answers}
			tt.client(t, rec.Wrap(up))
			if err := rec.Close(); err != nil {
				t.Fatalf("Close: got error %v, want none", err)
			}
			got := rec.Stats()
			if tt.want.Bytes == 0 {
				got.Bytes = 0
			}
			got.Files = nil
			if !statsEqual(got, tt.want) {
				t.Errorf("stats: got %+v, want %+v", got, tt.want)
			}
			f, err := cassette.Load(path)
			if err != nil {
				t.Fatalf("load: got error %v, want none", err)
			}
			h, err := history.Build(f)
			switch {
			case tt.noLog != "" && (!errors.Is(err, history.ErrNoTraffic) || !strings.Contains(err.Error(), tt.noLog)):
				t.Fatalf("build: got error %v, want %v saying %q", err, history.ErrNoTraffic, tt.noLog)
			case tt.noLog == "" && err != nil:
				t.Fatalf("build: got error %v, want none", err)
			}
			tt.check(t, f.Interactions, h)
		})
	}
}

func statsEqual(a, b Stats) bool {
	a.Files, b.Files = nil, nil
	return a.Interactions == b.Interactions && a.ListPages == b.ListPages && a.Watches == b.Watches && a.Objects == b.Objects &&
		a.Events == b.Events && a.Bookmarks == b.Bookmarks && a.Errors == b.Errors && a.Bytes == b.Bytes && a.PartialFrames == b.PartialFrames
}

func TestRecordRedactsCredentials(t *testing.T) {
	t.Parallel()
	const (
		bearer = "Bearer tok-3f9a-authz"
		cookie = "session=cookie-77ab"
		urlTok = "urltoken-c0ffee"
		setCk  = "server-cookie-d00d"
		imp    = "impersonated-admin"
	)
	list := cmList("10", cmItem("ns", "a", "8", "x"))
	uri := "/api/v1/configmaps?limit=500&access_token=" + urlTok + "&resourceVersion=0"
	tests := []struct {
		name   string
		secret string
	}{
		{name: "redaction - Authorization header value - pass", secret: "tok-3f9a-authz"},
		{name: "redaction - Cookie header value - pass", secret: "cookie-77ab"},
		{name: "redaction - URL access_token - pass", secret: urlTok},
		{name: "redaction - Set-Cookie answer header - pass", secret: setCk},
		{name: "redaction - Impersonate-User header - pass", secret: imp},
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.yaml")
	rec, err := New(path, WithFlushInterval(0))
	if err != nil {
		t.Fatalf("New: got error %v, want none", err)
	}
	up := &upstream{answers: map[string]answer{uri: {code: 200, parts: []string{list},
		header: http.Header{"Content-Type": {"application/json"}, "Set-Cookie": {setCk}}}}}
	resp := get(t, rec.Wrap(up), uri, http.Header{"Authorization": {bearer}, "Cookie": {cookie}, "Impersonate-User": {imp}})
	if got := resp.Header.Get("Set-Cookie"); got != setCk {
		t.Errorf("client's Set-Cookie: got %q, want %q", got, setCk)
	}
	if got := readAll(t, resp, 7); got != list {
		t.Errorf("client's body: got %q, want %q", got, list)
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("Close: got error %v, want none", err)
	}
	text := dirText(t, dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(text, tt.secret) {
				t.Errorf("files: got %q in them, want it nowhere", tt.secret)
			}
		})
	}
	t.Run("redaction - other query parameters kept - pass", func(t *testing.T) {
		its := interactions(t, path)
		if want := testHost + "/api/v1/configmaps?limit=500&resourceVersion=0"; len(its) != 1 || its[0].URL != want {
			t.Errorf("recorded URL: got %v, want %q", its, want)
		}
	})
	t.Run("redaction - the upstream got the credentials - pass", func(t *testing.T) {
		if got := up.seen[0].Header.Get("Authorization"); got != bearer {
			t.Errorf("upstream Authorization: got %q, want %q", got, bearer)
		}
	})
}

func TestRecordPrefersJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		accept string
		want   string
	}{
		{name: "accept - protobuf preferred - JSON asked - pass", accept: "application/vnd.kubernetes.protobuf, application/json", want: "application/json"},
		{name: "accept - protobuf only - JSON asked - pass", accept: "application/vnd.kubernetes.protobuf", want: "application/json"},
		{name: "accept - CBOR and JSON with parameters - JSON ranges kept - pass",
			accept: "application/cbor;g=apidiscovery.k8s.io;v=v2,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
			want:   "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"},
		{name: "accept - JSON - unchanged - pass", accept: "application/json", want: "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := New(filepath.Join(t.TempDir(), "rec.yaml"), WithFlushInterval(0))
			if err != nil {
				t.Fatalf("New: got error %v, want none", err)
			}
			defer rec.Close()
			up := &upstream{answers: map[string]answer{"": {code: 200, parts: []string{cmList("1")}}}}
			readAll(t, get(t, rec.Wrap(up), listURI, http.Header{"Accept": {tt.accept}}), 64)
			if got := up.seen[0].Header.Get("Accept"); got != tt.want {
				t.Errorf("upstream Accept: got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNewOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name string
		path string
		opts []Option
		want error
	}{
		{name: "New - path without .yaml - fail", path: filepath.Join(dir, "x.json"), want: ErrOptions},
		{name: "New - zero max size - fail", path: filepath.Join(dir, "x.yaml"), opts: []Option{WithMaxSize(0)}, want: ErrOptions},
		{name: "New - negative flush interval - fail", path: filepath.Join(dir, "x.yaml"), opts: []Option{WithFlushInterval(-1)}, want: ErrOptions},
		{name: "New - unsupported redact path - fail", path: filepath.Join(dir, "x.yaml"), opts: []Option{WithRedactFields("{.items[0]}")}, want: ErrOptions},
		{name: "New - good options - pass", path: filepath.Join(dir, "sub", "x.yaml"), opts: []Option{WithRedactFields(".data"), WithMaxSize(1 << 10)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := New(tt.path, tt.opts...)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("New: got error %v, want %v", err, tt.want)
			}
			if rec != nil {
				if err := rec.Close(); err != nil {
					t.Errorf("Close: got error %v, want none", err)
				}
				if _, err := cassette.Load(tt.path); err != nil {
					t.Errorf("load the empty cassette: got error %v, want none", err)
				}
			}
		})
	}
}

func TestCheckOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []Option
		want error
	}{
		{"CheckOptions - defaults - pass", nil, nil},
		{"CheckOptions - good redact paths - pass", []Option{WithRedactFields(".data", ".spec.containers[*].env")}, nil},
		{"CheckOptions - zero max size - fail", []Option{WithMaxSize(0)}, ErrOptions},
		{"CheckOptions - negative flush interval - fail", []Option{WithFlushInterval(-1)}, ErrOptions},
		{"CheckOptions - indexed redact path - fail", []Option{WithRedactFields("{.items[0]}")}, ErrOptions},
		{"CheckOptions - redact path reaching the name - fail", []Option{WithRedactFields(".metadata")}, ErrOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := CheckOptions(tt.opts...); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("CheckOptions: got error %v, want %v", err, tt.want)
			}
		})
	}
}

// gzipLists compresses the answers to requests that are not watches, as
// kube-apiserver does for large ones.
