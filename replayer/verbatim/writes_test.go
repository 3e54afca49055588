package verbatim

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
)

// sent is one request of a writes test and what it must get.
type sent struct {
	method, path, contentType, body string
	wantCode                        int
	wantIn                          string // in the answer's body
}

// send sends s through rt and checks its answer.
func send(t *testing.T, rt http.RoundTripper, s sent) {
	t.Helper()
	var body io.Reader
	if s.body != "" {
		body = strings.NewReader(s.body)
	}
	req, err := http.NewRequest(s.method, testHost+s.path, body)
	if err != nil {
		t.Fatalf("request: got error %v, want none", err)
	}
	if s.contentType != "" {
		req.Header.Set("Content-Type", s.contentType)
	}
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: got error %v, want an answer", s.method, s.path, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: body: got error %v, want none", s.method, s.path, err)
	}
	if resp.StatusCode != s.wantCode || !bytes.Contains(got, []byte(s.wantIn)) {
		t.Errorf("%s %s: got HTTP %d %s, want %d with %q", s.method, s.path, resp.StatusCode, got, s.wantCode, s.wantIn)
	}
}

func TestVerbatimWrites(t *testing.T) {
	const (
		cms      = "/api/v1/namespaces/ns/configmaps"
		json     = "application/json"
		pb       = "application/vnd.kubernetes.protobuf"
		apply    = "application/apply-patch+yaml"
		created  = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a-child","namespace":"ns","resourceVersion":"11"}}`
		updated  = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"12"}}`
		conflict = `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409}`
		child    = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a-child","namespace":"ns","labels":{"child":"true"}}}`
		parent   = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","annotations":{"child":"a-child"}}}`
		proto    = "k8s\x00\n\x0f\n\x02v1\x12\tConfigMap\x12\x05\n\x03\n\x01a"
	)
	write := func(method, path, contentType, body string, code int, answer string) cassette.Interaction {
		it := cassette.Interaction{Method: method, URL: testHost + path, Code: code, Body: []byte(answer), Replay: cassette.ReplayVerbatim,
			Header: http.Header{"Content-Type": {json}}, RequestHeader: http.Header{}}
		if contentType != "" {
			it.RequestHeader.Set("Content-Type", contentType)
		}
		if body != "" {
			it.RequestBody = []byte(body)
		}
		return it
	}
	redacted := write("PUT", "/api/v1/namespaces/ns/secrets/s", json, `{"data":{"k":"aG1hYw=="}}`, 200, updated)
	redacted.Header.Set(cassette.HeaderRedacted, "request-body")
	tests := []struct {
		name     string
		recorded []cassette.Interaction
		requests []sent
		// the mismatches noted, each naming these
		wantMismatches []string
		wantExhausted  bool
	}{
		{name: "verbatim writes - the recorded create, update and stale retry - recorded answers in order - pass",
			recorded: []cassette.Interaction{write("POST", cms, json, child, 201, created), write("PUT", cms+"/a", json, parent, 200, updated), write("PUT", cms+"/a", json, parent, 409, conflict)},
			requests: []sent{
				{"POST", cms, json, "{\n  \"metadata\": {\"labels\": {\"child\": \"true\"}, \"namespace\": \"ns\", \"name\": \"a-child\"},\n  \"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"\n}", 201, `"resourceVersion":"11"`},
				{"PUT", cms + "/a", json, parent, 200, `"resourceVersion":"12"`},
				{"PUT", cms + "/a", json, parent, 409, "Conflict"},
			}, wantExhausted: true},
		{name: "verbatim writes - two creates to one collection sent in the other order - each its recorded answer - pass",
			recorded: []cassette.Interaction{write("POST", cms, json, child, 201, created), write("POST", cms, json, strings.Replace(child, "a-child", "b-child", 1), 201, updated)},
			requests: []sent{
				{"POST", cms, json, strings.Replace(child, "a-child", "b-child", 1), 201, `"resourceVersion":"12"`},
				{"POST", cms, json, child, 201, `"resourceVersion":"11"`},
			}, wantExhausted: true},
		{name: "verbatim writes - a create of an object not recorded - 400 naming the next recorded create - fail",
			recorded:       []cassette.Interaction{write("POST", cms, json, child, 201, created), write("POST", cms, json, strings.Replace(child, "a-child", "b-child", 1), 201, updated)},
			requests:       []sent{{"POST", cms, json, strings.Replace(child, "a-child", "c-child", 1), 400, "repro.yaml: interaction 0): they differ at .metadata.name"}},
			wantMismatches: []string{"repro.yaml: interaction 0", ".metadata.name"}},
		{name: "verbatim writes - a protobuf body, the same bytes - its answer - pass",
			recorded: []cassette.Interaction{write("POST", cms, pb, proto, 201, created)},
			requests: []sent{{"POST", cms, pb, proto, 201, `"resourceVersion":"11"`}}, wantExhausted: true},
		{name: "verbatim writes - a protobuf body one byte off, then the recorded one - 400 naming the interaction, then the answer - fail",
			recorded: []cassette.Interaction{write("POST", cms, pb, proto, 201, created)},
			requests: []sent{
				{"POST", cms, pb, proto[:len(proto)-1] + "b", 400, "repro.yaml: interaction 0"},
				{"POST", cms, pb, proto, 201, `"resourceVersion":"11"`},
			},
			wantMismatches: []string{"POST " + cms + " (recorded at repro.yaml: interaction 0)", "28 bytes, recorded 28, first different at byte 27"}, wantExhausted: true},
		{name: "verbatim writes - an update with another annotation - 400 naming the field, the write kept - fail",
			recorded:       []cassette.Interaction{write("PUT", cms+"/a", json, parent, 200, updated)},
			requests:       []sent{{"PUT", cms + "/a", json, strings.Replace(parent, "a-child", "b-child", 1), 400, "differ at .metadata.annotations.child"}},
			wantMismatches: []string{"repro.yaml: interaction 0", ".metadata.annotations.child"}},
		{name: "verbatim writes - the body sent in another encoding - 400 - fail",
			recorded:       []cassette.Interaction{write("PUT", cms+"/a", json, parent, 200, updated)},
			requests:       []sent{{"PUT", cms + "/a", pb, proto, 400, "the body is " + pb + ", recorded " + json}},
			wantMismatches: []string{"recorded " + json}},
		{name: "verbatim writes - a write with none recorded left - 404, a mismatch - fail",
			recorded:       []cassette.Interaction{write("DELETE", cms+"/a-child", "", "", 200, `{"kind":"Status","status":"Success"}`)},
			requests:       []sent{{"DELETE", cms + "/a-child", "", "", 200, "Success"}, {"DELETE", cms + "/a-child", "", "", 404, "no answer left for DELETE"}},
			wantMismatches: []string{"DELETE " + cms + "/a-child: the reproducer holds no write left to it"}, wantExhausted: true},
		{name: "verbatim writes - recorded without a body - answered whatever is sent - pass",
			recorded: []cassette.Interaction{write("PUT", cms+"/a", json, "", 200, updated)},
			requests: []sent{{"PUT", cms + "/a", json, `{"anything":1}`, 200, `"resourceVersion":"12"`}}, wantExhausted: true},
		{name: "verbatim writes - a body the recorder redacted - answered - pass",
			recorded: []cassette.Interaction{redacted},
			requests: []sent{{"PUT", "/api/v1/namespaces/ns/secrets/s", json, `{"data":{"k":"Y2xlYXI="}}`, 200, `"resourceVersion":"12"`}}, wantExhausted: true},
		{name: "verbatim writes - an apply YAML laid out otherwise - the same, answered - pass",
			recorded: []cassette.Interaction{write("PATCH", cms+"/a?fieldManager=m", apply, "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: a\n", 200, updated)},
			requests: []sent{{"PATCH", cms + "/a?fieldManager=m", apply, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, 200, `"resourceVersion":"12"`}}, wantExhausted: true},
		{name: "verbatim writes - JSON sent where JSON was recorded, not JSON - 400 - fail",
			recorded:       []cassette.Interaction{write("PUT", cms+"/a", json, parent, 200, updated)},
			requests:       []sent{{"PUT", cms + "/a", json, "{not json", 400, "the body is not JSON"}},
			wantMismatches: []string{"the body is not JSON"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := New(&cassette.File{Path: "repro.yaml", Interactions: tc.recorded})
			if err != nil {
				t.Fatalf("New: got error %v, want none", err)
			}
			for _, s := range tc.requests {
				send(t, v.Transport(), s)
			}
			err = v.Mismatches()
			if (err != nil) != (len(tc.wantMismatches) > 0) || (err != nil && !errors.Is(err, ErrMismatch)) {
				t.Errorf("Mismatches: got %v, want one wrapping ErrMismatch: %v", err, len(tc.wantMismatches) > 0)
			}
			for _, want := range tc.wantMismatches {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Mismatches: got %v, want it to name %q", err, want)
				}
			}
			if got := v.Exhausted(); got != tc.wantExhausted {
				t.Errorf("Exhausted: got %v, want %v", got, tc.wantExhausted)
			}
		})
	}
}

func TestVerbatimEchoes(t *testing.T) {
	const (
		cms     = "/api/v1/namespaces/ns/configmaps"
		wURL    = cms + "?allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=60&watch=true"
		list    = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}`
		created = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a-child","namespace":"ns","uid":"u1","resourceVersion":"11"}}`
		echo    = `{"type":"ADDED","object":` + created + `}`
		other   = `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b","namespace":"ns","uid":"u2","resourceVersion":"12"}}}`
		body    = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a-child","namespace":"ns"}}`
	)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	file := &cassette.File{Path: "repro.yaml", Interactions: []cassette.Interaction{
		{Method: "GET", URL: testHost + cms + "?limit=500&resourceVersion=0", Code: 200, Body: []byte(list), Started: start},
		{Method: "GET", URL: testHost + wURL, Code: 200, Body: []byte(echo + "\n" + other + "\n"), Started: start.Add(time.Second),
			FrameOffsets: []time.Duration{2 * time.Second, 3 * time.Second}, StreamEnd: cassette.EndEOF},
		{Method: "POST", URL: testHost + cms, Code: 201, Body: []byte(created), Started: start.Add(2 * time.Second),
			RequestHeader: http.Header{"Content-Type": {"application/json"}}, RequestBody: []byte(body)},
	}}
	for k := range file.Interactions {
		file.Interactions[k].Replay = cassette.ReplayVerbatim
	}
	tests := []struct {
		name        string
		write       bool // the target makes the recorded create
		wantBefore  int  // frames read before the create
		wantAfter   int  // frames read by the stream's end
		wantTimeout bool // the stream ends at its timeout
	}{
		{name: "verbatim echoes - the create made - its echo after it, then the rest - pass", write: true, wantBefore: 0, wantAfter: 2},
		{name: "verbatim echoes - the create never made - the echo and what follows held back, the stream ends at its timeout - fail", wantTimeout: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				v, err := New(file)
				if err != nil {
					t.Fatalf("New: got error %v, want none", err)
				}
				rt := v.Transport()
				fetch(t, rt, cms+"?limit=500&resourceVersion=0")
				var mu sync.Mutex
				frames := 0
				ended := make(chan time.Time, 1)
				go func() {
					resp, err := (&http.Client{Transport: rt}).Get(testHost + wURL)
					if err != nil {
						ended <- time.Now()
						return
					}
					defer resp.Body.Close()
					sc := bufio.NewScanner(resp.Body)
					for sc.Scan() {
						mu.Lock()
						frames++
						mu.Unlock()
					}
					ended <- time.Now()
				}()
				synctest.Wait()
				mu.Lock()
				before := frames
				mu.Unlock()
				if before != tc.wantBefore {
					t.Errorf("frames before the create: got %d, want %d", before, tc.wantBefore)
				}
				began := time.Now()
				if tc.write {
					send(t, rt, sent{"POST", cms, "application/json", body, 201, `"resourceVersion":"11"`})
				}
				end := <-ended
				mu.Lock()
				defer mu.Unlock()
				if frames != tc.wantAfter {
					t.Errorf("frames by the end: got %d, want %d", frames, tc.wantAfter)
				}
				if timedOut := end.Sub(began) >= time.Minute; timedOut != tc.wantTimeout {
					t.Errorf("stream ended after %v: got timeout %v, want %v", end.Sub(began), timedOut, tc.wantTimeout)
				}
			})
		})
	}
}
