package replayer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/builtin"
	"github.com/lwreplay/lwreplay/synth"
)

// acceptProtobuf is the Accept of client-go's typed clients for built-in
// kinds (gentype's UseProtobufAsDefault).
const acceptProtobuf = "application/vnd.kubernetes.protobuf,application/json"

// protobufCases returns the cases of tests again, asked in protobuf: each
// wants the same answer, decoded. Timed cases are left out (when frames
// come does not depend on their encoding).
func protobufCases(tests []faultCase) []faultCase {
	var out []faultCase
	for _, tc := range tests {
		if tc.timed {
			continue
		}
		tc.name = strings.TrimSuffix(strings.TrimSuffix(tc.name, " - pass"), " - fail") + ", asked in protobuf - pass"
		tc.accept = acceptProtobuf
		out = append(out, tc)
	}
	return out
}

// undetailed drops what differs between a JSON and a protobuf answer's
// transcript: the bytes of an INVALID frame and of a PARTIAL one.
func undetailed(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "INVALID"):
			l = "INVALID"
		case strings.HasPrefix(l, "PARTIAL"):
			l = "PARTIAL"
		}
		out[i] = l
	}
	return out
}

// asJSON shows a protobuf answer as the JSON one it stands for: each
// object decoded as client-go decodes it, then encoded in JSON. A watch's
// frames become JSON lines; a frame that does not decode is an INVALID
// line, and an unfinished frame's bytes end the body without a newline.
func asJSON(t *testing.T, a answerText) answerText {
	t.Helper()
	ct := a.resp.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, mediaProtobuf) {
		return a
	}
	a.protobuf = true
	if !strings.Contains(ct, "stream=watch") {
		a.body = decodedJSON(t, a.body)
		return a
	}
	var out []byte
	b := a.body
	for len(b) >= 4 && len(b) >= 4+int(binary.BigEndian.Uint32(b)) {
		n := int(binary.BigEndian.Uint32(b))
		frame := b[4 : 4+n]
		b = b[4+n:]
		var ev metav1.WatchEvent
		if err := ev.Unmarshal(frame); err != nil {
			out = append(out, "INVALID protobuf frame\n"...)
			continue
		}
		out = append(out, `{"type":"`+ev.Type+`","object":`...)
		out = append(out, decodedJSON(t, ev.Object.Raw)...)
		out = append(out, "}\n"...)
	}
	out = append(out, bytes.Repeat([]byte("x"), len(b))...) // an unfinished frame
	a.body = out
	return a
}

// decodedJSON decodes pb, a protobuf object, as client-go's protobuf
// decoder does, and returns it in JSON.
func decodedJSON(t *testing.T, pb []byte) []byte {
	t.Helper()
	obj, _, err := builtin.Codecs.UniversalDeserializer().Decode(pb, nil, nil)
	if err != nil {
		t.Fatalf("decoding a protobuf answer: got error %v, want none", err)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatalf("encoding %T: %v", obj, err)
	}
	return b
}

// TestProtobufAnswers asks one server the same things in JSON and in
// protobuf. Each protobuf answer decodes, as client-go decodes it, to the
// object the JSON one decodes to.
func TestProtobufAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, target string
		accept       string // "": acceptProtobuf
		protobuf     bool   // the answer is protobuf
	}{
		{name: "protobuf - a configmap's GET - pass", target: "/api/v1/namespaces/a/configmaps/one", protobuf: true},
		{name: "protobuf - a deployment's GET - pass", target: "/apis/apps/v1/namespaces/a/deployments/web", protobuf: true},
		{name: "protobuf - a namespace's GET - pass", target: "/api/v1/namespaces/b", protobuf: true},
		{name: "protobuf - a LIST - pass", target: "/api/v1/configmaps", protobuf: true},
		{name: "protobuf - a LIST page, remainingItemCount and continue - pass", target: "/api/v1/configmaps?limit=2", protobuf: true},
		{name: "protobuf - an empty LIST - pass", target: "/api/v1/namespaces/zz/configmaps", protobuf: true},
		{name: "protobuf - a GET of nothing, a Status in JSON - pass", target: "/api/v1/namespaces/a/configmaps/nope"},
		{name: "protobuf - a Table is JSON - pass", target: "/api/v1/configmaps", accept: "application/json;as=Table;v=v1;g=meta.k8s.io, application/json"},
		{name: "protobuf - a LIST asking for protobuf alone - pass", target: "/api/v1/configmaps", accept: mediaProtobuf, protobuf: true},
		{name: "protobuf - a GET asking for protobuf alone - pass", target: "/api/v1/namespaces/a/configmaps/one", accept: mediaProtobuf, protobuf: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t)
			accept := tc.accept
			if accept == "" {
				accept = acceptProtobuf
			}
			pbRec, jsonRec := get(s, tc.target, accept), get(s, tc.target, "application/json")
			if got := strings.HasPrefix(pbRec.Header().Get("Content-Type"), mediaProtobuf); got != tc.protobuf {
				t.Fatalf("answer in protobuf: got %v (%s), want %v", got, pbRec.Header().Get("Content-Type"), tc.protobuf)
			}
			if pbRec.Code != jsonRec.Code {
				t.Fatalf("code: got %d in protobuf, want %d as in JSON", pbRec.Code, jsonRec.Code)
			}
			if !tc.protobuf {
				return
			}
			codec := builtin.Codecs.UniversalDeserializer()
			got, _, err := codec.Decode(pbRec.Body.Bytes(), nil, nil)
			if err != nil {
				t.Fatalf("decoding the protobuf answer: %v", err)
			}
			want, _, err := codec.Decode(jsonRec.Body.Bytes(), nil, nil)
			if err != nil {
				t.Fatalf("decoding the JSON answer: %v", err)
			}
			if !apiequality.Semantic.DeepEqual(got, want) {
				t.Errorf("decoded:\ngot  %#v\nwant %#v", got, want)
			}
		})
	}
}

// TestProtobufList holds the list the replay assembles from its items'
// protobuf to the bytes kube-apiserver's serializer makes of the typed
// list.
func TestProtobufList(t *testing.T) {
	t.Parallel()
	res := history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	two := int64(2)
	object := func(ns, name string, data map[string]string) *history.Object {
		b, err := json.Marshal(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: "7",
			Labels: map[string]string{"a": "b"}}, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		o, _, _, err := history.ParseObject(b)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	tests := []struct {
		name string
		p    page
	}{
		{name: "protobuf list - empty - pass", p: page{items: []*history.Object{}}},
		{name: "protobuf list - two items - pass", p: page{items: []*history.Object{object("a", "one", nil), object("b", "two", map[string]string{"k": "v"})}}},
		{name: "protobuf list - a page with continue and remainingItemCount - pass",
			p: page{items: []*history.Object{object("a", "one", nil)}, next: "/a/one\x00", remaining: &two}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := listProtobuf(res, "9", tc.p)
			if err != nil {
				t.Fatalf("listProtobuf: got error %v, want none", err)
			}
			list := &corev1.ConfigMapList{}
			if err := kjson.UnmarshalCaseSensitivePreserveInts(listBody(res, "9", tc.p), list); err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := pbSerializer.Encode(list, &want); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("list:\ngot  %x\nwant %x (the typed list's encoding)", got, want.Bytes())
			}
		})
	}
}

// TestPrefersProtobuf reads Accept headers as kube-apiserver's negotiation
// picks protobuf for a built-in kind.
func TestPrefersProtobuf(t *testing.T) {
	t.Parallel()
	cm := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	tests := []struct {
		name, accept string
		kind         bool // a built-in kind (else a custom one)
		want         bool
	}{
		{name: "prefers protobuf - client-go's typed client - pass", accept: acceptProtobuf, kind: true, want: true},
		{name: "prefers protobuf - controller-runtime's client - pass", accept: mediaProtobuf + ", */*", kind: true, want: true},
		{name: "prefers protobuf - a custom kind - fail", accept: acceptProtobuf},
		{name: "prefers protobuf - JSON first - fail", accept: "application/json, " + mediaProtobuf, kind: true},
		{name: "prefers protobuf - no Accept - fail", kind: true},
		{name: "prefers protobuf - a Table in protobuf - fail", accept: mediaProtobuf + ";as=Table;v=v1;g=meta.k8s.io", kind: true},
		{name: "prefers protobuf - a malformed clause - fail", accept: mediaProtobuf + ";;=", kind: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := http.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set("Accept", tc.accept)
			gvk := widget
			if tc.kind {
				gvk = cm
			}
			if got := prefersProtobuf(r, gvk); got != tc.want {
				t.Errorf("Accept %q, %s: got %v, want %v", tc.accept, gvk.Kind, got, tc.want)
			}
		})
	}
}

// TestProtobufUndecodable serves a configmap whose JSON its Go type cannot
// hold ("data" a number). Its GET is answered in JSON, which the client
// accepts through its second clause. A watch in protobuf ends before its
// frame, as kube-apiserver's watch server ends at an encoding error.
func TestProtobufUndecodable(t *testing.T) {
	t.Parallel()
	b := synth.NewBuilder()
	good := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "good"}}
	bad := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": "a", "name": "bad"}, "data": int64(5)}}
	b.Add(good) // 1001
	b.Add(bad)  // 1002
	b.Snapshot()
	good.Data = map[string]string{"k": "v"}
	b.Update(good) // 1003
	bad.SetLabels(map[string]string{"k": "v"})
	b.Update(bad) // 1004
	h, err := b.History()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, target string
		want         []string // the transcript, as asJSON shows it
		protobuf     bool
	}{
		{name: "undecodable - its GET - JSON - pass", target: "/api/v1/namespaces/a/configmaps/bad"},
		{name: "undecodable - a watch - ends before its frame - pass", target: "/api/v1/configmaps?watch=true&resourceVersion=1002&timeoutSeconds=5",
			want: []string{"MODIFIED a/good@1003", "EOF"}, protobuf: true},
		{name: "undecodable - a LIST - JSON - pass", target: "/api/v1/configmaps"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := New(h, WithLatency(0))
				a := fetchAccept(t, s.Transport(), tc.target, acceptProtobuf)
				if a.resp.StatusCode != http.StatusOK {
					t.Fatalf("code: got %d, want 200: %s", a.resp.StatusCode, a.body)
				}
				if a.protobuf != tc.protobuf {
					t.Errorf("protobuf: got %v (%s), want %v", a.protobuf, a.resp.Header.Get("Content-Type"), tc.protobuf)
				}
				if tc.want != nil {
					if got := transcript(a, false); !equalStrings(got, tc.want) {
						t.Errorf("answer:\ngot  %q\nwant %q", got, tc.want)
					}
				}
			})
		})
	}
}
