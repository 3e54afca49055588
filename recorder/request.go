package recorder

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/lwreplay/lwreplay/history"
)

// A write's request body is recorded as the client sent it: the bytes of
// its object or patch, in the encoding its Content-Type names. That is
// JSON, the apply YAML, or protobuf (as controller-runtime sends every
// built-in kind). So a reproducer holds what the target wrote. The
// cassette keeps them faithfully: go-vcr's YAML encoder writes bytes
// that are not UTF-8 as a !!binary scalar (base64), which loads back
// byte for byte.
//
// When the recorder redacts (WithRedactSecrets, WithRedactFields,
// WithKeepManagedFields(false)), a request body is redacted as an answer
// is. A JSON object is rewritten as re-encoded JSON: a create, update,
// merge and strategic merge patch, an apply given as JSON. An apply YAML
// is rewritten as JSON (which is YAML). A protobuf body of a kind
// client-go's scheme knows is decoded, redacted and encoded again as
// protobuf. A JSON patch's values written under a Secret's data or
// stringData are replaced. A body it cannot rewrite so is not written: a
// JSON patch under field redaction, CBOR, a protobuf of an unknown kind.
// The interaction is recorded without it, and Stats.DroppedBodies counts
// it. A redacted body is marked (cassette.HeaderRedacted on the answer) so
// that a verbatim replay does not hold it against the client's.

// takeBody returns the body req sends, and req with its body still to be
// sent. It takes a fresh copy from GetBody when the request has one, and
// leaves its own body alone. Else it reads the body whole and puts it
// back. A read that fails leaves the request to fail as it would have:
// the bytes read, then the error.
func takeBody(req *http.Request) ([]byte, *http.Request) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, req
	}
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			b, err := io.ReadAll(rc)
			rc.Close()
			if err == nil {
				return b, req
			}
		}
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	c := *req
	if err != nil {
		c.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b), errReader{err}))
		return nil, &c
	}
	c.Body = io.NopCloser(bytes.NewReader(b))
	c.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	return b, &c
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// Media types of request bodies (kube-apiserver's, as
// k8s.io/apimachinery/pkg/types names the patch types).
const (
	mediaJSON     = "application/json"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// request returns a request body to q as it is to be written. It is as
// sent when nothing is to be redacted. Else it is redacted (redacted
// true), or nil and ok false when it cannot be.
func (rd *redactor) request(body []byte, contentType string, q history.RequestInfo) (out []byte, redacted, ok bool) {
	if len(body) == 0 || !rd.active(q) {
		return body, false, true
	}
	media, _, err := mime.ParseMediaType(contentType)
	if contentType == "" {
		media, err = mediaJSON, nil // client-go's default content type
	}
	if err != nil {
		return nil, false, false
	}
	switch types.PatchType(media) {
	case types.JSONPatchType:
		out, ok = rd.jsonPatch(body, q)
		return out, ok, ok
	case types.ApplyYAMLPatchType:
		if body, err = utilyaml.ToJSON(body); err != nil {
			return nil, false, false
		}
		media = mediaJSON
	case types.MergePatchType, types.StrategicMergePatchType:
		media = mediaJSON
	}
	switch media {
	case mediaJSON:
		out, ok = rd.requestObject(body, q)
	case mediaProtobuf:
		out, ok = rd.protobuf(body)
	}
	return out, ok, ok
}

// requestObject redacts a JSON object a write sends: an object (its kind
// its own) or a patch of one. A patch has the kind of what q addresses,
// as far as redaction needs it: Secret for secrets).
func (rd *redactor) requestObject(body []byte, q history.RequestInfo) ([]byte, bool) {
	doc, ok := decodeObject(body)
	if !ok {
		return nil, false
	}
	kind, _ := doc["kind"].(string)
	if kind == "" && isSecrets(q) {
		kind = "Secret"
	}
	rd.object(doc, kind)
	return encode(doc)
}

// isSecrets reports whether q addresses core Secrets.
func isSecrets(q history.RequestInfo) bool {
	return q.Resource.Group == "" && q.Resource.Resource == "secrets"
}

// jsonPatch redacts a JSON patch (RFC 6902) a write sends: the values of
// its operations under a Secret's data or stringData. Field paths cannot
// be followed through its pointers: under WithRedactFields it is not kept.
// managedFields a patch writes are kept (they hold no values).
func (rd *redactor) jsonPatch(body []byte, q history.RequestInfo) ([]byte, bool) {
	if len(rd.fields) > 0 {
		return nil, false
	}
	var ops []map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&ops) != nil {
		return nil, false
	}
	for _, op := range ops {
		path, _ := op["path"].(string)
		field, key, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
		switch {
		case !rd.secrets || !isSecrets(q) || (field != "data" && field != "stringData"):
		case key != "":
			if s, ok := op["value"].(string); ok {
				op["value"] = rd.secretValue(s, field == "data")
			}
		default:
			m, _ := op["value"].(map[string]any)
			for k, v := range m {
				if s, ok := v.(string); ok {
					m[k] = rd.secretValue(s, field == "data")
				}
			}
		}
	}
	return encode(ops)
}

// protobufCodec reads and writes kube-apiserver's protobuf envelope for
// the kinds of client-go's scheme.
var protobufCodec = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)

// protobuf redacts a protobuf body of a kind client-go's scheme knows:
// decoded, redacted as its JSON form would be, and encoded again.
func (rd *redactor) protobuf(body []byte) ([]byte, bool) {
	obj, gvk, err := protobufCodec.Decode(body, nil, nil)
	if err != nil || gvk == nil {
		return nil, false
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, false
	}
	rd.object(m, gvk.Kind)
	typed, err := scheme.Scheme.New(*gvk)
	if err != nil || runtime.DefaultUnstructuredConverter.FromUnstructured(m, typed) != nil {
		return nil, false
	}
	typed.GetObjectKind().SetGroupVersionKind(*gvk)
	var buf bytes.Buffer
	if protobufCodec.Encode(typed, &buf) != nil {
		return nil, false
	}
	return buf.Bytes(), true
}
