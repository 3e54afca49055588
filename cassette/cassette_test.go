package cassette

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"
	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

const listURL = "https://kube.example:6443/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0"

// watchBody is a realistic watch stream: newline-delimited JSON events.
const watchBody = `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"11"},"data":{"k":"line one\nline two\n"}}}
{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"12"}}}
{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"15","creationTimestamp":null}}}
`

func TestSave_GoVCRLoad(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"watch stream - trailing newline - pass", watchBody},
		{"watch stream - no trailing newline - pass", strings.TrimSuffix(watchBody, "\n")},
		{"watch stream - blank lines at end - pass", watchBody + "\n\n"},
		{"list - one line - pass", `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}`},
		{"pretty-printed - leading spaces - pass", "{\n  \"kind\": \"Status\",\n  \"code\": 410\n}\n"},
		{"trailing spaces on lines - pass", "a  \nb\t\n  \n"},
		{"CRLF line ends - pass", "{\"a\":1}\r\n{\"b\":2}\r\n"},
		{"YAML-looking text - pass", "---\n- item: 1\n# not a comment\n...\n"},
		{"unicode and line separators - pass", "caf\u00e9 \u2028 \u0085 \ufeff\n"},
		{"control bytes - pass", "nul \x00 bell \a esc \x1b\n"},
		{"invalid UTF-8 - pass", "bad \xff\xfe bytes\n"},
		{"long line - pass", strings.Repeat("x", 5000) + " " + strings.Repeat("y y ", 500) + "\n"},
		{"empty - pass", ""},
		{"only a newline - pass", "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "c.yaml")
			f := New()
			f.Add(Interaction{Method: "GET", URL: listURL, Code: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(tt.body)})
			if err := f.Save(path); err != nil {
				t.Fatalf("Save: got error %v, want none", err)
			}
			vc, err := vcr.Load(filepath.Join(dir, "c"))
			if err != nil {
				t.Fatalf("go-vcr Load: got error %v, want none", err)
			}
			if len(vc.Interactions) != 1 {
				t.Fatalf("go-vcr Load: got %d interactions, want 1", len(vc.Interactions))
			}
			vi := vc.Interactions[0]
			if vi.Response.Body != tt.body {
				t.Errorf("go-vcr body: got %q, want %q", vi.Response.Body, tt.body)
			}
			if vi.Request.URL != listURL || vi.Request.Method != "GET" || vi.Response.Code != 200 {
				t.Errorf("go-vcr request: got %s %s %d, want GET %s 200", vi.Request.Method, vi.Request.URL, vi.Response.Code, listURL)
			}
			if got := vi.Response.Headers.Get(HeaderFormat); got != "1" {
				t.Errorf("go-vcr header %s: got %q, want %q", HeaderFormat, got, "1")
			}
			back, err := Load(path)
			if err != nil {
				t.Fatalf("Load: got error %v, want none", err)
			}
			if got := back.Interactions[0].Body; !bytes.Equal(got, []byte(tt.body)) {
				t.Errorf("Load body: got %q, want %q", got, tt.body)
			}
		})
	}
}

func TestLoad_GoVCRWritten(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "recorded")
	vc := vcr.New(name)
	vc.MarshalFunc = yaml.Marshal // as go-vcr's recorder sets it
	vc.AddInteraction(&vcr.Interaction{
		Request: vcr.Request{Method: "GET", URL: listURL, Headers: http.Header{"Accept": {"application/json"}}},
		Response: vcr.Response{Code: 200, Status: "200 OK", Body: `{"kind":"ConfigMapList","metadata":{"resourceVersion":"10"},"items":[]}`,
			Headers: http.Header{"Content-Type": {"application/json"}}, Duration: 3 * time.Millisecond},
	})
	vc.AddInteraction(&vcr.Interaction{
		Request:  vcr.Request{URL: "https://kube.example:6443/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=10"},
		Response: vcr.Response{Code: 200, Body: watchBody},
	})
	if err := vc.Save(); err != nil {
		t.Fatalf("go-vcr Save: got error %v, want none", err)
	}
	f, err := Load(name + ".yaml")
	if err != nil {
		t.Fatalf("Load: got error %v, want none", err)
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"count - pass", len(f.Interactions), 2},
		{"path - pass", f.Path, name + ".yaml"},
		{"method kept - pass", f.Interactions[0].Method, "GET"},
		{"method defaulted - pass", f.Interactions[1].Method, "GET"},
		{"url - pass", f.Interactions[0].URL, listURL},
		{"code - pass", f.Interactions[0].Code, 200},
		{"request header - pass", f.Interactions[0].RequestHeader.Get("Accept"), "application/json"},
		{"response header - pass", f.Interactions[0].Header.Get("Content-Type"), "application/json"},
		{"duration - pass", f.Interactions[0].Duration, 3 * time.Millisecond},
		{"no start time - pass", f.Interactions[1].Started.IsZero(), true},
		{"no frame offsets - pass", f.Interactions[1].FrameOffsets == nil, true},
		{"watch body - pass", string(f.Interactions[1].Body), watchBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

func TestLoad_Versions(t *testing.T) {
	tests := []struct {
		name       string
		vcrVersion int
		header     string
		wantErr    string // "" for success
	}{
		{"lwreplay format 1 - pass", 2, "1", ""},
		{"no lwreplay header - pass", 2, "", ""},
		{"lwreplay format newer - fail", 2, "2", "interaction 0 (line 4): format version 2 is newer than this lwreplay reads (1)"},
		{"lwreplay format not a number - fail", 2, "one", `interaction 0 (line 4): header X-Lwreplay-Format: "one" is not a format version`},
		{"lwreplay format zero - fail", 2, "0", `interaction 0 (line 4): header X-Lwreplay-Format: "0" is not a format version`},
		{"go-vcr version 1 - fail", 1, "", "go-vcr cassette format version 1; lwreplay reads version 2"},
		{"go-vcr version 3 - fail", 3, "1", "go-vcr cassette format version 3; lwreplay reads version 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			vc := vcr.New(filepath.Join(dir, "v"))
			vc.Version = tt.vcrVersion
			vc.MarshalFunc = yaml.Marshal
			h := http.Header{}
			if tt.header != "" {
				h.Set(HeaderFormat, tt.header)
			}
			vc.AddInteraction(&vcr.Interaction{Request: vcr.Request{URL: listURL}, Response: vcr.Response{Code: 200, Headers: h, Body: "{}"}})
			if err := vc.Save(); err != nil {
				t.Fatalf("go-vcr Save: got error %v, want none", err)
			}
			_, err := Load(filepath.Join(dir, "v.yaml"))
			checkErr(t, err, tt.wantErr)
		})
	}
}

// checkErr checks err against want: nil when want is "", else an ErrFormat
// whose message holds want.
func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("got error %v, want none", err)
	case want == "":
	case err == nil:
		t.Fatalf("got no error, want one containing %q", want)
	case !errors.Is(err, ErrFormat):
		t.Errorf("got error %v, want it to wrap ErrFormat", err)
	case !strings.Contains(err.Error(), want):
		t.Errorf("got error %q, want it to contain %q", err, want)
	}
}

func TestLoad_Malformed(t *testing.T) {
	tests := []struct {
		name    string
		file    string // "" for no file at all
		content string
		wantErr string
	}{
		{"missing file - fail", "", "", "missing.yaml: no such file or directory"},
		{"not .yaml - fail", "c.json", "{}", "c.json: a cassette file name must end in .yaml"},
		{"bad YAML - fail", "c.yaml", "version: 2\ninteractions: [\n", "c.yaml: yaml:"},
		{"empty file - fail", "c.yaml", "", "c.yaml: not a go-vcr cassette (no version field)"},
		{"YAML without a version - fail", "c.yaml", "interactions: []\n", "c.yaml: not a go-vcr cassette (no version field)"},
		{"no interactions - pass", "c.yaml", "version: 2\ninteractions: []\n", ""},
		{"null interaction - fail", "c.yaml", "version: 2\ninteractions:\n- null\n", "c.yaml: interaction 0 (line 3): empty"},
		{"no url - fail", "c.yaml", "version: 2\ninteractions:\n- request: {method: GET}\n  response: {code: 200}\n", "c.yaml: interaction 0 (line 3): request has no url"},
		{"no status code - fail", "c.yaml", "version: 2\ninteractions:\n- request: {url: 'http://h/api'}\n  response: {code: 200}\n- request: {url: 'http://h/api'}\n  response: {body: '{}'}\n",
			"c.yaml: interaction 1 (line 5): response has no status code"},
		{"cut after the request - fail", "c.yaml", "version: 2\ninteractions:\n- request: {url: 'http://h/api'}\n", "c.yaml: interaction 0 (line 3): response has no status code"},
		{"bad start time - fail", "c.yaml", "version: 2\ninteractions:\n- request: {url: 'http://h/api'}\n  response: {code: 200, headers: {X-Lwreplay-Started: [yesterday]}}\n",
			"c.yaml: interaction 0 (line 3): header X-Lwreplay-Started"},
		{"bad frame offsets - fail", "c.yaml", "version: 2\ninteractions:\n- request: {url: 'http://h/api'}\n  response: {code: 200}\n- request: {url: 'http://h/api'}\n  response: {code: 200, headers: {X-Lwreplay-Frame-Offsets: ['1,x']}}\n",
			`c.yaml: interaction 1 (line 5): header X-Lwreplay-Frame-Offsets: frame 1: "x" is not`},
		{"negative frame offset - fail", "c.yaml", "version: 2\ninteractions:\n- request: {url: 'http://h/api'}\n  response: {code: 200, headers: {X-Lwreplay-Frame-Offsets: ['-1']}}\n",
			`c.yaml: interaction 0 (line 3): header X-Lwreplay-Frame-Offsets: frame 0: "-1" is not`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "missing.yaml")
			if tt.file != "" {
				path = filepath.Join(dir, tt.file)
				if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(path)
			checkErr(t, err, tt.wantErr)
		})
	}
}

func TestLoad_MissingFileIsNotExist(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: got %v, want an error wrapping os.ErrNotExist", err)
	}
}
