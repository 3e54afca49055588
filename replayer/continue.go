package replayer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
)

// continueVersion is the version kube-apiserver writes in its continue
// tokens.
const continueVersion = "meta.k8s.io/v1"

// errInvalidContinue is wrapped by the errors of a continue token that
// cannot be read. Its text and its wrappers' are kube-apiserver's: the
// 400 answer reads "invalid continue token: continue key is not valid: ...".
var errInvalidContinue = errors.New("continue key is not valid")

// continueToken is where a paginated LIST resumes: the resourceVersion of
// the snapshot its first page showed and the key to start at.
//
// On the wire it is shaped like kube-apiserver's: base64url (unpadded) of
// {"v":"meta.k8s.io/v1","rv":136,"start":"/ns/name\u0000"}. The start key is
// relative to the listed collection. It is the last returned key followed
// by a NUL byte, so items at or after it are the ones not yet returned.
// RVs that are not decimal integers an int64 holds travel as JSON strings.
type continueToken struct {
	// rv is the snapshot's resourceVersion; "" when consistent.
	rv string
	// consistent says the list continues at the newest state
	// (kube-apiserver's rv -1, minted with a 410 for an expired token).
	consistent bool
	// start is the first key to list, with a leading "/".
	start string
}

// encode renders the token as a continue parameter value.
func (t continueToken) encode() string {
	var b bytes.Buffer
	b.WriteString(`{"v":"` + continueVersion + `","rv":`)
	switch {
	case t.consistent:
		b.WriteString("-1")
	case isDecimalRV(t.rv):
		b.WriteString(t.rv)
	default:
		writeJSONStr(&b, t.rv)
	}
	b.WriteString(`,"start":`)
	writeJSONStr(&b, t.start)
	b.WriteByte('}')
	return base64.RawURLEncoding.EncodeToString(b.Bytes())
}

// isDecimalRV reports whether rv is a decimal integer in canonical form
// that kube-apiserver's token field (an int64) holds, as etcd revisions
// are. A larger one (the history orders RVs up to the largest uint64)
// travels as a JSON string, so that the token still decodes.
func isDecimalRV(rv string) bool {
	n, err := strconv.ParseInt(rv, 10, 64)
	return err == nil && n >= 0 && strconv.FormatInt(n, 10) == rv
}

func writeJSONStr(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // a string always marshals
	b.Write(enc)
}

type wireContinue struct {
	V     string          `json:"v"`
	RV    json.RawMessage `json:"rv"`
	Start string          `json:"start"`
}

// decodeContinue reads a continue parameter, checking it as
// kube-apiserver's storage.DecodeContinue does.
func decodeContinue(s string) (continueToken, error) {
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return continueToken{}, fmt.Errorf("%w: %v", errInvalidContinue, err)
	}
	var w wireContinue
	if err := json.Unmarshal(data, &w); err != nil {
		return continueToken{}, fmt.Errorf("%w: %v", errInvalidContinue, err)
	}
	if w.V != continueVersion {
		return continueToken{}, fmt.Errorf("%w: server does not recognize this encoded version %v", errInvalidContinue, w.V)
	}
	var t continueToken
	switch {
	case len(w.RV) > 0 && w.RV[0] == '"':
		if err := json.Unmarshal(w.RV, &t.rv); err != nil {
			return continueToken{}, fmt.Errorf("%w: %v", errInvalidContinue, err)
		}
	case len(w.RV) > 0:
		n, err := strconv.ParseInt(string(w.RV), 10, 64)
		if err != nil {
			return continueToken{}, fmt.Errorf("%w: rv %s: not an integer", errInvalidContinue, w.RV)
		}
		if n < 0 {
			t.consistent = true
		} else {
			t.rv = strconv.FormatInt(n, 10)
		}
	}
	if !t.consistent && (t.rv == "" || t.rv == "0") {
		return continueToken{}, fmt.Errorf("%w: incorrect encoded start resourceVersion (version %s)", errInvalidContinue, continueVersion)
	}
	if w.Start == "" {
		return continueToken{}, fmt.Errorf("%w: encoded start key empty (version %s)", errInvalidContinue, continueVersion)
	}
	key := w.Start
	if key[0] != '/' {
		key = "/" + key
	}
	if path.Clean(key) != key {
		return continueToken{}, fmt.Errorf("%w: %v", errInvalidContinue, w.Start)
	}
	t.start = key
	return t, nil
}
