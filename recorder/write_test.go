package recorder

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lwreplay/lwreplay/cassette"
)

// protobufOf is obj in kube-apiserver's protobuf envelope, as
// controller-runtime and client-go's protobuf clients send it.
func protobufOf(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := protobufCodec.Encode(obj, &buf); err != nil {
		t.Fatalf("protobuf: got error %v, want none", err)
	}
	return buf.Bytes()
}

// secretValueOf decodes a recorded Secret's data value, as JSON writes it
// (base64), from a JSON or protobuf body.
func secretValueOf(t *testing.T, contentType string, body []byte, key string) string {
	t.Helper()
	if contentType == mediaProtobuf {
		obj, _, err := protobufCodec.Decode(body, nil, nil)
		s, ok := obj.(*corev1.Secret)
		if err != nil || !ok {
			t.Fatalf("recorded protobuf body: got %T, error %v, want a Secret", obj, err)
		}
		return b64(string(s.Data[key])) // data as its JSON form writes it
	}
	var s struct {
		Data map[string]string `json:"data"`
	}
	if err := jsonUnmarshal(body, &s); err != nil {
		t.Fatalf("recorded JSON body %s: got error %v, want a Secret", body, err)
	}
	return s.Data[key]
}

func TestRecordWrites(t *testing.T) {
	t.Parallel()
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "child", Namespace: "ns"}, Data: map[string]string{"parent": "p"}}
	cmProto := protobufOf(t, cm)
	secret := &corev1.Secret{TypeMeta: metav1.TypeMeta{Kind: "Secret", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}, Data: map[string][]byte{"password": []byte("hunter2-clear")}}
	secretProto := protobufOf(t, secret)
	secretJSON := `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","namespace":"ns"},"data":{"password":"` + b64("hunter2-clear") + `"}}`
	secretAnswer := `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","namespace":"ns","uid":"u1","resourceVersion":"7"},"data":{"password":"` + b64("hunter2-clear") + `"}}`
	const (
		cms      = "/api/v1/namespaces/ns/configmaps"
		secrets  = "/api/v1/namespaces/ns/secrets"
		cmAnswer = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"child","namespace":"ns","uid":"u1","resourceVersion":"7"},"data":{"parent":"p"}}`
	)
	redactSecrets := []Option{WithRedactSecrets(true)}
	tests := []struct {
		name        string
		opts        []Option
		method, uri string
		contentType string
		body        []byte
		noGetBody   bool // the request cannot give its body again: it is read and put back
		code        int
		answer      string
		// what is written
		wantBody     []byte   // the request body, byte for byte (nil: not checked)
		wantNoBody   bool     // no request body written
		wantSecret   bool     // the request and answer hold the same redacted password, not the clear one
		wantAbsent   []string // never in the file
		wantRedacted bool     // the answer carries cassette.HeaderRedacted
		wantDropped  int
	}{
		{name: "record writes - a protobuf create - bytes kept through save and load - pass",
			method: "POST", uri: cms, contentType: mediaProtobuf, body: cmProto, code: 201, answer: cmAnswer, wantBody: cmProto},
		{name: "record writes - a JSON update without GetBody - kept, and still sent - pass",
			method: "PUT", uri: cms + "/child", contentType: "application/json", body: []byte(cmAnswer), noGetBody: true, code: 200, answer: cmAnswer, wantBody: []byte(cmAnswer)},
		{name: "record writes - a refused update - its body kept with the 409 - pass",
			method: "PUT", uri: cms + "/child", contentType: "application/json", body: []byte(cmAnswer), code: 409,
			answer: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409}`, wantBody: []byte(cmAnswer)},
		{name: "record writes - a delete - no body - pass",
			method: "DELETE", uri: cms + "/child", code: 200, answer: `{"kind":"Status","apiVersion":"v1","status":"Success"}`, wantNoBody: true},
		{name: "record writes - a Secret created as JSON, redacting - request and answer redacted alike - pass",
			opts: redactSecrets, method: "POST", uri: secrets, contentType: "application/json", body: []byte(secretJSON), code: 201, answer: secretAnswer,
			wantSecret: true, wantAbsent: []string{b64("hunter2-clear")}, wantRedacted: true},
		{name: "record writes - a Secret created as protobuf, redacting - protobuf redacted - pass",
			opts: redactSecrets, method: "POST", uri: secrets, contentType: mediaProtobuf, body: secretProto, code: 201, answer: secretAnswer,
			wantSecret: true, wantAbsent: []string{b64("hunter2-clear")}, wantRedacted: true},
		{name: "record writes - a Secret merge patch without kind, redacting - redacted as a Secret - pass",
			opts: redactSecrets, method: "PATCH", uri: secrets + "/s", contentType: "application/merge-patch+json",
			body: []byte(`{"data":{"password":"` + b64("hunter2-clear") + `"}}`), code: 200, answer: secretAnswer,
			wantSecret: true, wantAbsent: []string{b64("hunter2-clear")}, wantRedacted: true},
		{name: "record writes - a Secret JSON patch, redacting - its values redacted - pass",
			opts: redactSecrets, method: "PATCH", uri: secrets + "/s", contentType: "application/json-patch+json",
			body: []byte(`[{"op":"replace","path":"/data/password","value":"` + b64("hunter2-clear") + `"}]`), code: 200, answer: secretAnswer,
			wantAbsent: []string{b64("hunter2-clear")}, wantRedacted: true},
		{name: "record writes - a Secret applied as YAML, redacting - written as redacted JSON - pass",
			opts: redactSecrets, method: "PATCH", uri: secrets + "/s?fieldManager=m", contentType: "application/apply-patch+yaml",
			body: []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: ns\nstringData:\n  password: hunter2-clear\n"), code: 200, answer: secretAnswer,
			wantAbsent: []string{"hunter2-clear"}, wantRedacted: true},
		{name: "record writes - a configmap written, redacting Secrets - kept as sent - pass",
			opts: redactSecrets, method: "POST", uri: cms, contentType: mediaProtobuf, body: cmProto, code: 201, answer: cmAnswer, wantBody: cmProto},
		{name: "record writes - a JSON patch under field redaction - not written - fail",
			opts: []Option{WithRedactFields(".data")}, method: "PATCH", uri: cms + "/child", contentType: "application/json-patch+json",
			body: []byte(`[{"op":"add","path":"/data/k","value":"clear-value"}]`), code: 200, answer: cmAnswer,
			wantNoBody: true, wantAbsent: []string{"clear-value"}, wantDropped: 1},
		{name: "record writes - a CBOR Secret, redacting - not written - fail",
			opts: redactSecrets, method: "POST", uri: secrets, contentType: "application/cbor", body: []byte("\xd9\xd9\xf7clear-cbor"), code: 201, answer: secretAnswer,
			wantNoBody: true, wantAbsent: []string{"clear-cbor"}, wantDropped: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := &upstream{answers: map[string]answer{"": {code: tc.code, parts: []string{tc.answer}}}}
			path := filepath.Join(t.TempDir(), "rec.yaml")
			rec, err := New(path, append([]Option{WithFlushInterval(0)}, tc.opts...)...)
			if err != nil {
				t.Fatalf("New: got error %v, want none", err)
			}
			var body io.Reader
			if tc.body != nil {
				body = bytes.NewReader(tc.body)
				if tc.noGetBody {
					body = io.MultiReader(body) // no GetBody for this type
				}
			}
			req, err := http.NewRequest(tc.method, testHost+tc.uri, body)
			if err != nil {
				t.Fatalf("request: got error %v, want none", err)
			}
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			resp, err := rec.Wrap(up).RoundTrip(req)
			if err != nil {
				t.Fatalf("%s %s: got error %v, want an answer", tc.method, tc.uri, err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != tc.answer {
				t.Errorf("the client's answer: got %s, want %s", got, tc.answer)
			}
			wantSent := 0 // request bodies the server reads
			if tc.body != nil {
				wantSent = 1
			}
			if len(up.bodies) != wantSent || wantSent == 1 && (!bytes.Equal(up.bodies[0], tc.body) || up.bodyErr[0] != nil) {
				t.Errorf("what the server got: got bodies %q (errors %v), want %q", up.bodies, up.bodyErr, tc.body)
			}
			if err := rec.Close(); err != nil {
				t.Fatalf("Close: got error %v, want none", err)
			}
			its := interactions(t, path)
			if len(its) != 1 {
				t.Fatalf("interactions: got %d, want 1", len(its))
			}
			it := its[0]
			if it.Method != tc.method || it.Code != tc.code || it.RequestHeader.Get("Content-Type") != tc.contentType {
				t.Errorf("interaction: got %s %d %q, want %s %d %q", it.Method, it.Code, it.RequestHeader.Get("Content-Type"), tc.method, tc.code, tc.contentType)
			}
			if tc.wantBody != nil && !bytes.Equal(it.RequestBody, tc.wantBody) {
				t.Errorf("request body: got %q, want %q", it.RequestBody, tc.wantBody)
			}
			if tc.wantNoBody != (it.RequestBody == nil) {
				t.Errorf("request body: got %q, want none: %v", it.RequestBody, tc.wantNoBody)
			}
			if tc.wantSecret {
				sent := secretValueOf(t, tc.contentType, it.RequestBody, "password")
				answered := secretValueOf(t, "application/json", it.Body, "password")
				if sent == "" || sent != answered || strings.Contains(sent, "hunter2") || bytes.Contains(it.RequestBody, []byte("hunter2")) {
					t.Errorf("redacted password: got request %q, answer %q, want equal and not the clear value", sent, answered)
				}
			}
			text := dirText(t, filepath.Dir(path))
			for _, s := range tc.wantAbsent {
				if strings.Contains(text, s) {
					t.Errorf("cassette: got %q in it, want it redacted", s)
				}
			}
			if got := it.Header.Get(cassette.HeaderRedacted) != ""; got != tc.wantRedacted {
				t.Errorf("%s: got %v, want %v", cassette.HeaderRedacted, got, tc.wantRedacted)
			}
			if st := rec.Stats(); st.Writes != 1 || st.DroppedBodies != tc.wantDropped {
				t.Errorf("stats: got %d writes, %d dropped bodies, want 1, %d", st.Writes, st.DroppedBodies, tc.wantDropped)
			}
		})
	}
}

// failingBody returns data, then fails with err.
type failingBody struct {
	data []byte
	err  error
}

func (b *failingBody) Read(p []byte) (int, error) {
	if len(b.data) == 0 {
		return 0, b.err
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

func (b *failingBody) Close() error { return nil }

func TestRecordWriteBodyFails(t *testing.T) {
	t.Parallel()
	errBody := errors.New("body broke")
	tests := []struct {
		name string
		body string
	}{
		{name: "record writes - the client's body fails midway - the server sees the same failure, no body written - fail", body: `{"kind":"ConfigMap"`},
		{name: "record writes - the client's body fails at once - the server sees the failure, no body written - fail"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := &upstream{answers: map[string]answer{"": {code: 400, parts: []string{`{"kind":"Status","apiVersion":"v1","status":"Failure","code":400}`}}}}
			path := filepath.Join(t.TempDir(), "rec.yaml")
			rec, err := New(path, WithFlushInterval(0))
			if err != nil {
				t.Fatalf("New: got error %v, want none", err)
			}
			req, _ := http.NewRequest("POST", testHost+"/api/v1/namespaces/ns/configmaps", nil)
			req.Body = &failingBody{data: []byte(tc.body), err: errBody}
			resp, err := rec.Wrap(up).RoundTrip(req)
			if err != nil {
				t.Fatalf("POST: got error %v, want the upstream's answer", err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if len(up.bodies) != 1 || string(up.bodies[0]) != tc.body || !errors.Is(up.bodyErr[0], errBody) {
				t.Errorf("what the server got: got %q, error %v, want %q, %v", up.bodies, up.bodyErr, tc.body, errBody)
			}
			if err := rec.Close(); err != nil {
				t.Fatalf("Close: got error %v, want none", err)
			}
			if its := interactions(t, path); len(its) != 1 || its[0].RequestBody != nil {
				t.Errorf("interactions: got %d, want 1 without a request body", len(its))
			}
		})
	}
}
