package testutil

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/watchlist"

	"github.com/lwreplay/lwreplay/history"
)

func TestGeneratedHistory(t *testing.T) {
	tests := []struct {
		name    string
		changes Changes
		// wantFlip: some MODIFIED event changes the app label
		wantFlip bool
		// wantData is a data value every initial configmap holds ("": none)
		wantData string
	}{
		{name: "generated history - escaped data - pass", changes: EscapedData, wantData: `{"json": "}"}`},
		{name: "generated history - label flips - pass", changes: LabelFlips, wantFlip: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const n, m = 20, 100
			h := GeneratedHistory(t, n, m, 7, tt.changes)
			if again := GeneratedHistory(t, n, m, 7, tt.changes); !reflect.DeepEqual(h, again) {
				t.Errorf("same arguments: got different histories, want the same")
			}
			if other := GeneratedHistory(t, n, m, 8, tt.changes); reflect.DeepEqual(h, other) {
				t.Errorf("other seed: got the same history, want another")
			}
			if len(h.Logs) != 1 || h.Logs[0].Resource.Resource != "configmaps" {
				t.Fatalf("logs: got %d (%v), want one of configmaps", len(h.Logs), h.Logs)
			}
			l := h.Logs[0]
			if len(l.Initial) != n || len(l.Events) != m {
				t.Errorf("size: got %d objects then %d events, want %d then %d", len(l.Initial), len(l.Events), n, m)
			}
			namespaces := map[string]int{}
			for _, o := range l.Initial {
				namespaces[o.Namespace]++
				var cm corev1.ConfigMap
				if err := json.Unmarshal(o.Raw, &cm); err != nil {
					t.Fatalf("initial %s: got error %v, want a configmap", o.Key(), err)
				}
				if got := cm.Data["k"]; got != tt.wantData {
					t.Errorf("initial %s data k: got %q, want %q", o.Key(), got, tt.wantData)
				}
				if app := o.Labels["app"]; app != "x" && app != "y" {
					t.Errorf("initial %s app label: got %q, want x or y", o.Key(), app)
				}
			}
			if want := map[string]int{"ns0": n / 2, "ns1": n / 2}; !reflect.DeepEqual(namespaces, want) {
				t.Errorf("initial namespaces: got %v, want %v", namespaces, want)
			}
			flipped := false
			for _, e := range l.Events {
				if e.Type == history.Modified && e.Prev.Labels["app"] != e.Object.Labels["app"] {
					flipped = true
				}
			}
			if flipped != tt.wantFlip {
				t.Errorf("a label flip among the changes: got %v, want %v", flipped, tt.wantFlip)
			}
		})
	}
}

// closeCounter is a ReadCloser that counts its closes.
type closeCounter struct {
	io.Reader
	closes int
}

func (c *closeCounter) Close() error { c.closes++; return nil }

func TestCutBody(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		proto bool // the body is a protobuf watch's
		lines int
		want  string
	}{
		{name: "cut body - two of three lines - pass", body: "a\nbb\nccc\n", lines: 2, want: "a\nbb\n"},
		{name: "cut body - more lines than the body - pass", body: "a\nb\n", lines: 5, want: "a\nb\n"},
		{name: "cut body - no line - pass", body: "a\n", lines: 0, want: ""},
		{name: "cut body - two of three protobuf frames, newlines inside - pass", proto: true,
			body: "\x00\x00\x00\x02\n\n\x00\x00\x00\x00\x00\x00\x00\x01z", lines: 2, want: "\x00\x00\x00\x02\n\n\x00\x00\x00\x00"},
		{name: "cut body - a protobuf frame longer than a read - pass", proto: true,
			body: "\x00\x00\x00\x05abcde\x00\x00\x00\x01z", lines: 1, want: "\x00\x00\x00\x05abcde"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time, then all at once: the cut does not
			// depend on how reads split the body.
			for _, reader := range []func(string) io.Reader{
				func(s string) io.Reader { return &oneByte{s: s} },
				func(s string) io.Reader { return bytes.NewBufferString(s) },
			} {
				rc := &closeCounter{Reader: reader(tt.body)}
				resp := &http.Response{Header: http.Header{}, Body: rc}
				if tt.proto {
					resp.Header.Set("Content-Type", "application/vnd.kubernetes.protobuf;stream=watch")
				}
				body := CutBody(resp, tt.lines)
				got, err := io.ReadAll(body)
				if err != nil || string(got) != tt.want {
					t.Errorf("read: got %q, %v, want %q, no error", got, err, tt.want)
				}
				if err := body.Close(); err != nil || rc.closes != 1 {
					t.Errorf("close: got %v and %d closes of the body, want none and 1", err, rc.closes)
				}
			}
		})
	}
}

// oneByte reads its string one byte at a time.
type oneByte struct{ s string }

func (r *oneByte) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	p[0], r.s = r.s[0], r.s[1:]
	return 1, nil
}

func TestObjectsState(t *testing.T) {
	cm := func(ns, name, rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
	}
	got := ObjectsState([]any{cm("b", "one", "5"), cm("a", "two", "7"), 42, cm("", "cluster", "1")})
	want := []string{"a/two@7", "b/one@5", "cluster@1", "int"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRequireWatchList(t *testing.T) {
	tests := []struct {
		name     string
		env      string
		wantSkip bool
	}{
		{name: "require WatchList - turned off - skips - pass", env: "false", wantSkip: true},
		{name: "require WatchList - turned on - runs - pass", env: "true"},
		{name: "require WatchList - empty - runs - pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(WatchListEnv, tt.env)
			var inner *testing.T
			t.Run("inner", func(t *testing.T) {
				inner = t
				RequireWatchList(t)
			})
			if inner.Skipped() != tt.wantSkip {
				t.Errorf("skipped: got %v, want %v", inner.Skipped(), tt.wantSkip)
			}
		})
	}
}

func TestNoWatchList(t *testing.T) {
	if !watchlist.DoesClientNotSupportWatchListSemantics(NoWatchList{}) {
		t.Errorf("client-go on NoWatchList: got WatchList supported, want unsupported")
	}
}
