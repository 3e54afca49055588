package recorder

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// answer is what the hand-made upstream answers one request with: the body
// comes in the given parts, one per Read, then end (io.EOF when nil).
type answer struct {
	code   int
	header http.Header
	parts  []string
	end    error
}

// upstream is a hand-made server: it answers by request path and query.
type upstream struct {
	answers map[string]answer // by URL.RequestURI(); "" matches anything else
	seen    []*http.Request
	bodies  [][]byte // the request bodies read, as seen
	bodyErr []error  // the errors reading them
}

func (u *upstream) RoundTrip(req *http.Request) (*http.Response, error) {
	u.seen = append(u.seen, req)
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		u.bodies, u.bodyErr = append(u.bodies, b), append(u.bodyErr, err)
	}
	a, ok := u.answers[req.URL.RequestURI()]
	if !ok {
		a, ok = u.answers[""]
	}
	if !ok {
		a = answer{code: 404, parts: []string{`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`}}
	}
	h := a.header.Clone()
	if h == nil {
		h = http.Header{"Content-Type": {"application/json"}}
	}
	end := a.end
	if end == nil {
		end = io.EOF
	}
	return &http.Response{StatusCode: a.code, Header: h, Body: &partsBody{parts: append([]string(nil), a.parts...), end: end}, Request: req}, nil
}

// partsBody returns one part per Read (split if p is short), then end.
type partsBody struct {
	parts  []string
	end    error
	closed bool
}

func (b *partsBody) Read(p []byte) (int, error) {
	if b.closed {
		return 0, io.ErrClosedPipe
	}
	for len(b.parts) > 0 && b.parts[0] == "" {
		b.parts = b.parts[1:]
	}
	if len(b.parts) == 0 {
		return 0, b.end
	}
	n := copy(p, b.parts[0])
	b.parts[0] = b.parts[0][n:]
	return n, nil
}

func (b *partsBody) Close() error { b.closed = true; return nil }

const testHost = "https://k8s.example"

// get sends a GET through rt and returns the response.
func get(t *testing.T, rt http.RoundTripper, uri string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, testHost+uri, nil)
	if err != nil {
		t.Fatalf("request %s: got error %v, want none", uri, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: got error %v, want none", uri, err)
	}
	return resp
}

// readN reads n times from body with a buffer of size bufSize and returns
// what was read.
func readN(t *testing.T, body io.Reader, n, bufSize int) string {
	t.Helper()
	var out strings.Builder
	buf := make([]byte, bufSize)
	for range n {
		k, err := body.Read(buf)
		out.Write(buf[:k])
		if err != nil {
			break
		}
	}
	return out.String()
}

// cmItem is a configmap list item; cmObject the same with kind and
// apiVersion, as a watch event carries it.
func cmItem(ns, name, rv string, data string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":%q,"uid":"uid-%s","resourceVersion":%q},"data":{"k":%q}}`, name, ns, name, rv, data)
}

func cmObject(ns, name, rv string, data string) string {
	return `{"kind":"ConfigMap","apiVersion":"v1",` + cmItem(ns, name, rv, data)[1:]
}

func event(typ, obj string) string { return fmt.Sprintf(`{"type":%q,"object":%s}`+"\n", typ, obj) }

func bookmark(rv string, initialEnd bool) string {
	ann := ""
	if initialEnd {
		ann = `,"annotations":{"k8s.io/initial-events-end":"true"}`
	}
	return event("BOOKMARK", fmt.Sprintf(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":%q%s}}`, rv, ann))
}

func cmList(rv string, items ...string) string {
	return fmt.Sprintf(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":%q},"items":[%s]}`, rv, strings.Join(items, ","))
}

// fixture reads a file of testdata/.
func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("fixture %s: got error %v, want none", name, err)
	}
	return string(b)
}

// loadDir loads every cassette the recorder wrote in dir and builds their
// history.
func loadDir(t *testing.T, dir string) ([]*cassette.File, *history.History) {
	t.Helper()
	files, err := cassette.LoadAll(dir)
	if err != nil {
		t.Fatalf("load %s: got error %v, want none", dir, err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatalf("build history of %s: got error %v, want none", dir, err)
	}
	return files, h
}

// dirText returns the text of every file in dir.
func dirText(t *testing.T, dir string) string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	var all bytes.Buffer
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatalf("read %s: got error %v, want none", n, err)
		}
		all.Write(b)
	}
	return all.String()
}

// logSummary renders a log as comparable lines: its start, initial state,
// every event and its final state.
func logSummary(l *history.Log) []string {
	out := []string{"start " + l.StartRV}
	for _, o := range l.Initial {
		out = append(out, "initial "+o.Key()+"@"+o.ResourceVersion)
	}
	for _, e := range l.Events {
		out = append(out, string(e.Type)+" "+e.Object.Key()+"@"+e.RV())
	}
	var final []string
	for _, o := range l.StateAt(l.End()) {
		final = append(final, o.Key()+"@"+o.ResourceVersion)
	}
	sort.Strings(final)
	return append(out, "final "+strings.Join(final, " "))
}

// sameLog compares a recorded log with the upstream one.
func sameLog(t *testing.T, got, want *history.Log) {
	t.Helper()
	g, w := logSummary(got), logSummary(want)
	if strings.Join(g, "\n") == strings.Join(w, "\n") {
		return
	}
	for k := 0; k < max(len(g), len(w)); k++ {
		gl, wl := "<none>", "<none>"
		if k < len(g) {
			gl = g[k]
		}
		if k < len(w) {
			wl = w[k]
		}
		if gl != wl {
			t.Errorf("%s: line %d of %d: got %q, want %q", want.Resource, k, len(w), gl, wl)
			return
		}
	}
}

// interactions returns the interactions of the recorded file path.
func interactions(t *testing.T, path string) []cassette.Interaction {
	t.Helper()
	f, err := cassette.Load(path)
	if err != nil {
		t.Fatalf("load %s: got error %v, want none", path, err)
	}
	return f.Interactions
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
