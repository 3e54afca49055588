package recorder

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/lwreplay/lwreplay/history"
)

// Redacted is what WithRedactFields puts in place of a string.
const Redacted = "REDACTED"

// lastApplied is the annotation kubectl apply leaves, holding the applied
// object (a Secret's data included) in clear.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// secretHeaders are the request headers never written.
var secretHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie"}

// secretParams are the query parameters never written (compared in lower
// case).
var secretParams = map[string]bool{
	"access_token": true, "token": true, "id_token": true, "refresh_token": true,
	"bearer_token": true, "client_secret": true, "password": true, "api_key": true, "apikey": true,
}

// requestHeader returns the request headers to write: without
// credentials (Authorization, Proxy-Authorization, Cookie) and
// impersonation (Impersonate-*).
func requestHeader(h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		ck := http.CanonicalHeaderKey(k)
		if strings.HasPrefix(ck, "Impersonate-") || contains(secretHeaders, ck) {
			continue
		}
		out[k] = append([]string(nil), v...)
	}
	return out
}

// responseHeader returns the response headers to write, without
// Set-Cookie. It drops Content-Length too, which a redacted body no
// longer matches; the cassette keeps the recorded body's length.
func responseHeader(h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		switch http.CanonicalHeaderKey(k) {
		case "Set-Cookie", "Set-Cookie2", "Content-Length":
			continue
		}
		out[k] = append([]string(nil), v...)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// requestURL returns the URL to write: without user info, fragment and
// token-like query parameters (access_token, token, ...); the other
// parameters keep their order and encoding.
func requestURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.Fragment, c.RawFragment = "", ""
	if c.RawQuery != "" {
		var kept []string
		for _, part := range strings.Split(c.RawQuery, "&") {
			name, _, _ := strings.Cut(part, "=")
			if n, err := url.QueryUnescape(name); err == nil {
				name = n
			}
			if !secretParams[strings.ToLower(name)] {
				kept = append(kept, part)
			}
		}
		c.RawQuery = strings.Join(kept, "&")
	}
	return c.String()
}

// redactor rewrites the objects of recorded bodies as the options ask.
type redactor struct {
	secrets     bool
	fields      []fieldPath
	dropManaged bool
	key         []byte // HMAC key for Secret values
}

// active reports whether bodies answering q must be decoded and rewritten.
func (rd *redactor) active(q history.RequestInfo) bool {
	return len(rd.fields) > 0 || rd.dropManaged || (rd.secrets && q.Resource.Group == "" && q.Resource.Resource == "secrets")
}

// document rewrites a whole answer (a list, or one object); ok is false
// when it is not a JSON object.
func (rd *redactor) document(b []byte) ([]byte, int, bool) {
	doc, ok := decodeObject(b)
	if !ok {
		return nil, 0, false
	}
	kind, _ := doc["kind"].(string)
	items, isList := doc["items"].([]any)
	switch {
	case isList:
		itemKind := strings.TrimSuffix(kind, "List")
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				k, _ := m["kind"].(string)
				if k == "" {
					k = itemKind
				}
				rd.object(m, k)
			}
		}
	case kind != "Status":
		rd.object(doc, kind)
	}
	out, ok := encode(doc)
	return out, len(items), ok
}

// frame rewrites a watch frame's object; ok is false when the frame is
// not a JSON object.
func (rd *redactor) frame(b []byte) ([]byte, frameInfo, bool) {
	doc, ok := decodeObject(b)
	if !ok {
		return nil, frameInfo{}, false
	}
	typ, _ := doc["type"].(string)
	fi := frameInfo{typ: history.EventType(typ)}
	obj, _ := doc["object"].(map[string]any)
	switch fi.typ {
	case history.Added, history.Modified, history.Deleted:
		if obj != nil {
			kind, _ := obj["kind"].(string)
			rd.object(obj, kind)
		}
	case history.Bookmark:
		meta, _ := obj["metadata"].(map[string]any)
		ann, _ := meta["annotations"].(map[string]any)
		fi.initialEnd = ann[history.InitialEventsEndAnnotation] == "true"
	}
	out, ok := encode(doc)
	return out, fi, ok
}

// object redacts one object of the given kind in place.
func (rd *redactor) object(obj map[string]any, kind string) {
	meta, _ := obj["metadata"].(map[string]any)
	if rd.dropManaged && meta != nil {
		delete(meta, "managedFields")
	}
	if rd.secrets && kind == "Secret" {
		for _, field := range []string{"data", "stringData"} {
			m, _ := obj[field].(map[string]any)
			for k, v := range m {
				if s, ok := v.(string); ok {
					m[k] = rd.secretValue(s, field == "data")
				}
			}
		}
		if ann, _ := meta["annotations"].(map[string]any); ann != nil {
			if _, ok := ann[lastApplied]; ok {
				ann[lastApplied] = Redacted
			}
		}
	}
	for _, p := range rd.fields {
		p.redact(obj)
	}
}

// secretValue returns the replacement of a Secret value: the base64 of its
// HMAC-SHA256 under the recorder's key. So equal values get equal
// replacements, and data stays valid base64. A data value is hashed
// decoded, so that a value reads the same in data and stringData.
func (rd *redactor) secretValue(v string, isBase64 bool) string {
	raw := []byte(v)
	if isBase64 {
		if d, err := base64.StdEncoding.DecodeString(v); err == nil {
			raw = d
		}
	}
	m := hmac.New(sha256.New, rd.key)
	m.Write(raw)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// decodeObject decodes a JSON object, keeping numbers exact.
func decodeObject(b []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if dec.Decode(&doc) != nil || doc == nil {
		return nil, false
	}
	return doc, true
}

// encode renders v as compact JSON without HTML escaping, as
// kube-apiserver does.
func encode(v any) ([]byte, bool) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil, false
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true
}
