package recorder

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func TestParseFieldPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		path  string
		steps string // rendered steps; "" when refused
	}{
		{name: "field path - braces and [*] - pass", path: "{.spec.containers[*].env}", steps: "spec containers * env"},
		{name: "field path - no braces - pass", path: ".metadata.annotations", steps: "metadata annotations"},
		{name: "field path - .* wildcard - pass", path: ".data.*", steps: "data *"},
		{name: "field path - escaped dots in a name - pass", path: `.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration`,
			steps: "metadata annotations kubectl.kubernetes.io/last-applied-configuration"},
		{name: "field path - index - fail", path: "{.spec.containers[0].env}"},
		{name: "field path - slice - fail", path: "{.spec.containers[1:2]}"},
		{name: "field path - filter - fail", path: `{.spec.containers[?(@.name=="x")].env}`},
		{name: "field path - recursive descent - fail", path: "{..env}"},
		{name: "field path - union - fail", path: "{.spec['a','b']}"},
		{name: "field path - two paths - fail", path: "{.a}{.b}"},
		{name: "field path - the root - fail", path: "{.}"},
		{name: "field path - metadata.name - fail", path: ".metadata.name"},
		{name: "field path - metadata as a whole - fail", path: ".metadata"},
		{name: "field path - every metadata field - fail", path: ".metadata.*"},
		{name: "field path - kind - fail", path: "{.kind}"},
		{name: "field path - syntax error - fail", path: "{.spec[}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fp, err := parseFieldPath(tt.path)
			if tt.steps == "" {
				if !errors.Is(err, ErrOptions) {
					t.Fatalf("parse %q: got %v, want an error wrapping ErrOptions", tt.path, err)
				}
				if !strings.Contains(err.Error(), strconv.Quote(tt.path)) {
					t.Errorf("error: got %q, want it to name %q", err, tt.path)
				}
				return
			}
			if err != nil {
				t.Fatalf("parse %q: got error %v, want none", tt.path, err)
			}
			var got []string
			for _, s := range fp.steps {
				if s.all {
					got = append(got, "*")
				} else {
					got = append(got, s.name)
				}
			}
			if strings.Join(got, " ") != tt.steps {
				t.Errorf("steps: got %q, want %q", strings.Join(got, " "), tt.steps)
			}
		})
	}
}

const podJSON = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","resourceVersion":"7","annotations":{"a":"secret-a","b":"secret-b"},` +
	`"managedFields":[{"manager":"kubectl"}]},"spec":{"containers":[{"name":"c1","ports":[{"containerPort":80}],"env":[{"name":"PW","value":"hunter2"}]},` +
	`{"name":"c2","env":[{"name":"TOKEN","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}]}]}}`

func TestRedactObject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		fields    []string
		drop      bool
		gone      []string // must not appear
		kept      []string // must appear
		redacted  int      // REDACTED occurrences
		wantError bool
	}{
		{name: "redact fields - container env - pass", fields: []string{"{.spec.containers[*].env}"},
			gone: []string{"hunter2", `"PW"`, `"TOKEN"`}, kept: []string{`"containerPort":80`, "secret-a", "managedFields"}, redacted: 5},
		{name: "redact fields - annotations keep their keys - pass", fields: []string{".metadata.annotations"},
			gone: []string{"secret-a", "secret-b"}, kept: []string{`"a":"REDACTED"`, "hunter2"}, redacted: 2},
		{name: "redact fields - path leading nowhere - pass", fields: []string{".status.podIP"},
			kept: []string{"hunter2", "secret-a"}, redacted: 0},
		{name: "drop managedFields - pass", drop: true, gone: []string{"managedFields", "kubectl"}, kept: []string{"hunter2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rd := &redactor{dropManaged: tt.drop}
			for _, f := range tt.fields {
				fp, err := parseFieldPath(f)
				if err != nil {
					t.Fatalf("parse %q: got error %v, want none", f, err)
				}
				rd.fields = append(rd.fields, fp)
			}
			out, _, ok := rd.document([]byte(podJSON))
			if !ok {
				t.Fatalf("document: got not ok, want ok")
			}
			s := string(out)
			for _, g := range tt.gone {
				if strings.Contains(s, g) {
					t.Errorf("redacted pod: got %q in %s, want it gone", g, s)
				}
			}
			for _, k := range tt.kept {
				if !strings.Contains(s, k) {
					t.Errorf("redacted pod: got %s, want it to hold %q", s, k)
				}
			}
			if n := strings.Count(s, Redacted); n != tt.redacted {
				t.Errorf("REDACTED count: got %d, want %d", n, tt.redacted)
			}
		})
	}
}

func TestRedactSecrets(t *testing.T) {
	t.Parallel()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	list := `{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[` +
		`{"metadata":{"name":"s1","namespace":"ns","resourceVersion":"5","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"pw\":\"aHVudGVyMg==\"}}"}},"data":{"pw":"` + b64("hunter2") + `","user":"` + b64("admin") + `"}},` +
		`{"metadata":{"name":"s2","namespace":"ns","resourceVersion":"6"},"data":{"pw":"` + b64("hunter2") + `"},"stringData":{"pw":"hunter2"}}]}`
	rd := &redactor{secrets: true, key: []byte("test key")}
	out, n, ok := rd.document([]byte(list))
	if !ok || n != 2 {
		t.Fatalf("document: got (%d items, %v), want (2, true)", n, ok)
	}
	doc, _ := decodeObject(out)
	items := doc["items"].([]any)
	data := func(k int, field, key string) string {
		return items[k].(map[string]any)[field].(map[string]any)[key].(string)
	}
	tests := []struct {
		name string
		ok   bool
		what string
	}{
		{name: "secret redaction - clear value gone - pass", ok: !strings.Contains(string(out), b64("hunter2")) && !strings.Contains(string(out), "aHVudGVyMg"), what: "hunter2 gone"},
		{name: "secret redaction - same value same replacement - pass", ok: data(0, "data", "pw") == data(1, "data", "pw"), what: "equal replacements"},
		{name: "secret redaction - data and stringData agree - pass", ok: data(1, "data", "pw") == data(1, "stringData", "pw"), what: "data == stringData"},
		{name: "secret redaction - different values differ - pass", ok: data(0, "data", "pw") != data(0, "data", "user"), what: "different replacements"},
		{name: "secret redaction - replacement is base64 - pass", ok: func() bool { _, err := base64.StdEncoding.DecodeString(data(0, "data", "pw")); return err == nil }(), what: "valid base64"},
		{name: "secret redaction - last-applied annotation - pass", ok: strings.Contains(string(out), `"kubectl.kubernetes.io/last-applied-configuration":"REDACTED"`), what: "annotation redacted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.ok {
				t.Errorf("%s: got %s, want %s", tt.name, out, tt.what)
			}
		})
	}
}

func TestRequestURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "request URL - access_token removed, order kept - pass", in: "https://h/api/v1/pods?watch=true&access_token=abc&resourceVersion=5",
			want: "https://h/api/v1/pods?watch=true&resourceVersion=5"},
		{name: "request URL - token and user info removed - pass", in: "https://u:pw@h/api?token=xyz&TOKEN=q#frag", want: "https://h/api"},
		{name: "request URL - nothing to remove - pass", in: "https://h/api/v1/configmaps?limit=500&resourceVersion=0",
			want: "https://h/api/v1/configmaps?limit=500&resourceVersion=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := url.Parse(tt.in)
			if err != nil {
				t.Fatalf("parse: got error %v, want none", err)
			}
			if got := requestURL(u); got != tt.want {
				t.Errorf("requestURL: got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	t.Parallel()
	req := http.Header{"Authorization": {"Bearer s3cr3t"}, "Proxy-Authorization": {"Basic x"}, "Cookie": {"c=1"},
		"Impersonate-User": {"admin"}, "Impersonate-Extra-Scopes": {"x"}, "Accept": {"application/json"}, "User-Agent": {"test"}}
	resp := http.Header{"Set-Cookie": {"sess=1"}, "Content-Type": {"application/json"}, "Content-Length": {"12"}, "Audit-Id": {"a"}}
	tests := []struct {
		name string
		got  http.Header
		kept []string
	}{
		{name: "request headers - credentials and impersonation removed - pass", got: requestHeader(req), kept: []string{"Accept", "User-Agent"}},
		{name: "response headers - Set-Cookie and Content-Length removed - pass", got: responseHeader(resp), kept: []string{"Audit-Id", "Content-Type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var keys []string
			for k := range tt.got {
				keys = append(keys, k)
			}
			if len(keys) != len(tt.kept) {
				t.Errorf("headers: got %q, want only %q", keys, tt.kept)
			}
			for _, k := range tt.kept {
				if tt.got.Get(k) == "" {
					t.Errorf("header %s: got none, want it kept", k)
				}
			}
		})
	}
}
