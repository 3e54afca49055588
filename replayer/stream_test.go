package replayer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/history"
)

// gotFrame is one watch event as a test reads it.
type gotFrame struct {
	at   time.Duration // since the request, in the bubble's time
	typ  string
	key  string // namespace/name; "" for BOOKMARK and ERROR
	rv   string
	end  bool   // carries the initial-events-end annotation
	code int32  // ERROR: the Status code
	msg  string // ERROR: the Status message
}

// String renders "ADDED ns1/a@1001", "BOOKMARK@1009 end" or
// "ERROR 410 too old resource version: 1 (2)".
func (f gotFrame) String() string {
	switch f.typ {
	case "ERROR":
		return fmt.Sprintf("ERROR %d %s", f.code, f.msg)
	case "BOOKMARK":
		if f.end {
			return "BOOKMARK@" + f.rv + " end"
		}
		return "BOOKMARK@" + f.rv
	}
	return f.typ + " " + f.key + "@" + f.rv
}

func parseFrame(line []byte) (gotFrame, error) {
	var ev struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		return gotFrame{}, fmt.Errorf("frame %q: %v", line, err)
	}
	var obj struct {
		metav1.TypeMeta
		Metadata metav1.ObjectMeta `json:"metadata"`
		Code     int32             `json:"code"`
		Message  string            `json:"message"`
	}
	if err := json.Unmarshal(ev.Object, &obj); err != nil {
		return gotFrame{}, fmt.Errorf("frame object %q: %v", ev.Object, err)
	}
	f := gotFrame{typ: ev.Type, rv: obj.Metadata.ResourceVersion, code: obj.Code, msg: obj.Message}
	f.end = obj.Metadata.Annotations[metav1.InitialEventsAnnotationKey] == "true"
	if ev.Type != "BOOKMARK" && ev.Type != "ERROR" {
		f.key = obj.Metadata.Name
		if obj.Metadata.Namespace != "" {
			f.key = obj.Metadata.Namespace + "/" + obj.Metadata.Name
		}
	}
	return f, nil
}

// streamAnswer is one answer read to its end through the in-process transport.
type streamAnswer struct {
	resp   *http.Response
	body   []byte
	frames []gotFrame
	end    time.Duration // when the body ended
	err    error         // the body's read error, if not EOF
}

// readStream requests target through rt and reads the answer to its end,
// noting when each frame arrived. Inside a synctest bubble the times are
// virtual and exact.
func readStream(t *testing.T, rt http.RoundTripper, target string) streamAnswer {
	t.Helper()
	start := time.Now()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, testHost+target, nil)
	if err != nil {
		t.Fatalf("request %s: %v", target, err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: got error %v, want an answer", target, err)
	}
	defer resp.Body.Close()
	var st streamAnswer
	st.resp = resp
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadBytes('\n')
		st.body = append(st.body, line...)
		if len(line) > 0 && resp.StatusCode == http.StatusOK && line[len(line)-1] == '\n' {
			f, perr := parseFrame(line)
			if perr != nil {
				t.Fatalf("GET %s: %v", target, perr)
			}
			f.at = time.Since(start)
			st.frames = append(st.frames, f)
		}
		if err != nil {
			if err != io.EOF {
				st.err = err
			}
			break
		}
	}
	st.end = time.Since(start)
	return st
}

func frameStrings(fs []gotFrame) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

func timedStrings(fs []gotFrame) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, "+"+f.at.String()+" "+f.String())
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// wireResponse renders a streamed answer for a golden file: request line,
// status, the headers a client reads (framing included), body.
func wireResponse(target string, resp *http.Response, body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "GET %s\nHTTP %d\n", target, resp.StatusCode)
	for _, h := range []string{"Content-Type", "Cache-Control", "Retry-After"} {
		if v := resp.Header.Get(h); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", h, v)
		}
	}
	if len(resp.TransferEncoding) > 0 {
		fmt.Fprintf(&b, "Transfer-Encoding: %s\n", strings.Join(resp.TransferEncoding, ", "))
	}
	b.WriteString("\n")
	b.Write(body)
	return b.Bytes()
}

func TestBookmarkObject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		res        history.Resource
		initialEnd bool
		want       string
	}{
		{name: "bookmark object - configmap - pass", res: history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"},
			want: `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"7"}}`},
		{name: "bookmark object - configmap initial-events-end - pass", res: history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}, initialEnd: true,
			want: `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"7","annotations":{"k8s.io/initial-events-end":"true"}}}`},
		{name: "bookmark object - pod carries its empty spec and status - pass", res: history.Resource{Version: "v1", Resource: "pods", Kind: "Pod"},
			want: `{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"7"},"spec":{"containers":null},"status":{}}`},
		{name: "bookmark object - custom resource as unstructured - pass", res: history.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget"}, initialEnd: true,
			want: `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"annotations":{"k8s.io/initial-events-end":"true"},"resourceVersion":"7"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(bookmarkObject(tt.res, "7", tt.initialEnd)); got != tt.want {
				t.Errorf("bookmark object:\ngot  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestEventFrame(t *testing.T) {
	t.Parallel()
	obj := func(raw string) *history.Object {
		o, _, _, err := history.ParseObject([]byte(raw))
		if err != nil {
			t.Fatalf("object %s: %v", raw, err)
		}
		return o
	}
	x := `{"metadata":{"name":"e","namespace":"ns","resourceVersion":"5","labels":{"app":"x"}},"involvedObject":{"resourceVersion":"5"}}`
	y := `{"metadata":{"name":"e","namespace":"ns","resourceVersion":"6","labels":{"app":"y"}},"involvedObject":{"resourceVersion":"5"}}`
	bare := `{"metadata":{"name":"e","namespace":"ns","labels":{"app":"x"}}}`
	sel := func(s string) filter {
		f, err := newFilter(history.RequestInfo{LabelSelector: s})
		if err != nil {
			t.Fatalf("selector %s: %v", s, err)
		}
		return f
	}
	tests := []struct {
		name    string
		e       history.Event
		f       filter
		wantTyp history.EventType
		want    string // the object sent; "" for none
	}{
		{name: "event frame - modified, stays selected - MODIFIED - pass", e: history.Event{Type: history.Modified, Object: obj(y), Prev: obj(x)}, f: sel("app"),
			wantTyp: history.Modified, want: `{"kind":"Event","apiVersion":"v1",` + y[1:]},
		{name: "event frame - modified into the selection - ADDED - pass", e: history.Event{Type: history.Modified, Object: obj(y), Prev: obj(x)}, f: sel("app=y"),
			wantTyp: history.Added, want: `{"kind":"Event","apiVersion":"v1",` + y[1:]},
		{name: "event frame - modified out of the selection - DELETED of the previous object at the event RV - pass",
			e: history.Event{Type: history.Modified, Object: obj(y), Prev: obj(x)}, f: sel("app=x"), wantTyp: history.Deleted,
			want: `{"kind":"Event","apiVersion":"v1","metadata":{"name":"e","namespace":"ns","resourceVersion":"6","labels":{"app":"x"}},"involvedObject":{"resourceVersion":"5"}}`},
		{name: "event frame - previous object without an RV - DELETED with one added - pass",
			e: history.Event{Type: history.Modified, Object: obj(y), Prev: obj(bare)}, f: sel("app=x"), wantTyp: history.Deleted,
			want: `{"kind":"Event","apiVersion":"v1","metadata":{"labels":{"app":"x"},"name":"e","namespace":"ns","resourceVersion":"6"}}`},
		{name: "event frame - deleted while selected - the recorded DELETED object - pass", e: history.Event{Type: history.Deleted, Object: obj(y), Prev: obj(y)}, f: sel("app=y"),
			wantTyp: history.Deleted, want: `{"kind":"Event","apiVersion":"v1",` + y[1:]},
		{name: "event frame - never selected - nothing - pass", e: history.Event{Type: history.Modified, Object: obj(y), Prev: obj(x)}, f: sel("app=z")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, got, ok := eventFrame(tt.e, tt.f, "Event", "v1")
			if ok != (tt.want != "") || typ != tt.wantTyp || string(got) != tt.want {
				t.Errorf("frame: got %v %s %s, want %v %s %s", ok, typ, got, tt.want != "", tt.wantTyp, tt.want)
			}
		})
	}
}

func TestObjectFrame(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want string // the frame; "" for what frame writes of its WithKind JSON
	}{
		{"object frame - compact object - kind first, one line - pass", `{"metadata":{"name":"a","namespace":"ns"},"data":{"k":"v"}}`,
			`{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"},"data":{"k":"v"}}}` + "\n"},
		{"object frame - pretty-printed object - compacted as frame does - pass", "{\n  \"metadata\": {\"name\": \"a\"}\n}",
			`{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}}` + "\n"},
		{"object frame - only metadata - pass", `{"metadata":{"name":"a"}}`, ""},
		{"object frame - empty object - no comma after apiVersion - pass", `{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &history.Object{Name: "a", Raw: []byte(tt.raw)}
			want := tt.want
			if want == "" {
				rec := httptest.NewRecorder()
				if err := newFrameWriter(rec).frame(history.Modified, o.WithKind("ConfigMap", "v1")); err != nil {
					t.Fatalf("frame: got error %v, want none", err)
				}
				want = rec.Body.String()
			}
			rec := httptest.NewRecorder()
			fw := newFrameWriter(rec)
			for range 2 { // the second frame reuses the writer's buffer
				if err := fw.objectFrame(history.Modified, o, "ConfigMap", "v1"); err != nil {
					t.Fatalf("objectFrame: got error %v, want none", err)
				}
			}
			if got := rec.Body.String(); got != want+want {
				t.Errorf("objectFrame twice: got %q, want %q twice", got, want)
			}
		})
	}
}
