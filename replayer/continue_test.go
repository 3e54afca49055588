package replayer

import (
	"encoding/base64"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

func TestPaginate(t *testing.T) {
	t.Parallel()
	h := listHistory(t)
	l, _ := h.Log(history.Resource{Version: "v1", Resource: "configmaps"})
	all, err := newFilter(history.RequestInfo{})
	if err != nil {
		t.Fatalf("filter: %v", err)
	}
	tests := []struct {
		name  string
		ns    string
		start string
		limit int64
		keys  []string
		next  string
		// remaining is remainingItemCount, "" when not given
		remaining string
	}{
		{name: "paginate - no limit - pass", keys: initialKeys},
		{name: "paginate - limit equals the count - pass", limit: 5, keys: initialKeys},
		{name: "paginate - limit below the count - pass", limit: 4, keys: initialKeys[:4], next: "/b/one\x00", remaining: "1"},
		{name: "paginate - start after a key - pass", start: "/a/two\x00", keys: []string{"b/one", "b/two"}},
		{name: "paginate - start at a removed key - pass", start: "/a/z", keys: []string{"b/one", "b/two"}},
		{name: "paginate - namespaced start - pass", ns: "b", start: "/one\x00", keys: []string{"b/two"}},
		{name: "paginate - start past the end - pass", start: "/z", keys: []string{}},
		{name: "paginate - namespaced limit - the namespace's rest remains - pass", ns: "a", limit: 2, keys: []string{"a/one", "a/three"}, next: "/three\x00", remaining: "1"},
		{name: "paginate - first namespace, no limit - pass", ns: "a", keys: []string{"a/one", "a/three", "a/two"}},
		{name: "paginate - last namespace from its start - pass", ns: "b", start: "/", limit: 1, keys: []string{"b/one"}, next: "/one\x00", remaining: "1"},
		{name: "paginate - namespace past its objects - pass", ns: "a", start: "/two\x00", keys: []string{}},
		{name: "paginate - namespace with no objects - pass", ns: "aa", keys: []string{}},
		{name: "paginate - namespace sorting before one with objects - pass", ns: "0", keys: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := paginate(l.StateAt(0), all, tt.ns, tt.start, tt.limit)
			got := []string{}
			for _, o := range p.items {
				got = append(got, o.Key())
			}
			if !reflect.DeepEqual(got, tt.keys) {
				t.Errorf("got %v, want %v", got, tt.keys)
			}
			if p.next != tt.next {
				t.Errorf("got next %q, want %q", p.next, tt.next)
			}
			rem := ""
			if p.remaining != nil {
				rem = strconv.FormatInt(*p.remaining, 10)
			}
			if rem != tt.remaining {
				t.Errorf("got remainingItemCount %q, want %q", rem, tt.remaining)
			}
		})
	}
}

func TestContinueToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tok  continueToken
		wire string // the token's JSON
	}{
		{name: "continue token - numeric rv - pass", tok: continueToken{rv: "136", start: "/ns/a\x00"}, wire: `{"v":"meta.k8s.io/v1","rv":136,"start":"/ns/a\u0000"}`},
		{name: "continue token - opaque rv - pass", tok: continueToken{rv: "x-7", start: "/a\x00"}, wire: `{"v":"meta.k8s.io/v1","rv":"x-7","start":"/a\u0000"}`},
		{name: "continue token - leading zero rv - pass", tok: continueToken{rv: "007", start: "/a"}, wire: `{"v":"meta.k8s.io/v1","rv":"007","start":"/a"}`},
		{name: "continue token - decimal rv past int64 - pass", tok: continueToken{rv: "9223372036854775808", start: "/a\x00"}, wire: `{"v":"meta.k8s.io/v1","rv":"9223372036854775808","start":"/a\u0000"}`},
		{name: "continue token - consistent - pass", tok: continueToken{consistent: true, start: "/a\x00"}, wire: `{"v":"meta.k8s.io/v1","rv":-1,"start":"/a\u0000"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := tt.tok.encode()
			got, err := decodeContinue(enc)
			if err != nil {
				t.Fatalf("decode: got error %v, want none", err)
			}
			if got != tt.tok {
				t.Errorf("got %+v, want %+v", got, tt.tok)
			}
			if w, _ := decodeBase64URL(enc); w != tt.wire {
				t.Errorf("got wire %s, want %s", w, tt.wire)
			}
		})
	}
}

func TestDecodeContinue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		wire string // the token's JSON
		want continueToken
		err  string // want an error containing this
	}{
		{name: "decode continue - etcd start without slash - pass", wire: `{"v":"meta.k8s.io/v1","rv":5,"start":"ns/a\u0000"}`, want: continueToken{rv: "5", start: "/ns/a\x00"}},
		{name: "decode continue - negative rv - pass", wire: `{"v":"meta.k8s.io/v1","rv":-7,"start":"a"}`, want: continueToken{consistent: true, start: "/a"}},
		{name: "decode continue - unknown version - fail", wire: `{"v":"meta.k8s.io/v2","rv":5,"start":"a"}`, err: "continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2"},
		{name: "decode continue - no rv - fail", wire: `{"v":"meta.k8s.io/v1","start":"a"}`, err: "incorrect encoded start resourceVersion (version meta.k8s.io/v1)"},
		{name: "decode continue - fractional rv - fail", wire: `{"v":"meta.k8s.io/v1","rv":1.5,"start":"a"}`, err: "continue key is not valid"},
		{name: "decode continue - not JSON - fail", wire: `rv=5`, err: "continue key is not valid: invalid character"},
		{name: "decode continue - unclean start - fail", wire: `{"v":"meta.k8s.io/v1","rv":5,"start":"a//b"}`, err: "continue key is not valid: a//b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeContinue(base64.RawURLEncoding.EncodeToString([]byte(tt.wire)))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, errInvalidContinue) {
					t.Fatalf("got error %v, want one wrapping errInvalidContinue containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func decodeBase64URL(s string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	return string(b), err
}
