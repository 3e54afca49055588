package verbatim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// The target's writes. A reproducer of a writing target holds its writes
// with their request bodies and answers (the recorder keeps them, see
// recorder). A write with a given method, path and query gets the
// recorded answer of the next recorded write to them whose body is its
// body. As for any request, the n-th such write gets the n-th answer. A
// create of another object to the same collection may come first, as a
// client's workers or its informer's order make it.
//
// A write whose body no recorded one has gets a 400 BadRequest Status.
// (It is another object or another change: the target went another way.)
// The Status names the next recorded write to them and the first
// difference from it. The recorded writes stay, for a retry that sends
// one. A write with no recorded one left gets the 404 any request gets.
// Both are kept (Mismatches): the replay no longer reproduces the
// recording.
//
// Some recorded writes are answered without a look at the body. One is a
// recorded write without a body: a reproducer recorded before bodies were
// kept, or a body the recorder could not redact. The other is one whose
// body the recorder redacted (cassette.HeaderRedacted).
//
// The recorded watch streams carry the writes' echoes. Each is held back
// until its write is answered (see gateEchoes). So the target, reading
// its streams, finds the world as it was before it wrote, as it did when
// recorded.

// ErrMismatch is wrapped by the errors of writes a reproducer did not
// answer with a recorded answer. Their body is not the recorded one, or
// no recorded write to them is left.
var ErrMismatch = errors.New("the target's write is not the recorded one")

// maxSent is the most of a request body a replay reads: kube-apiserver's
// default limit (k8s.io/apiserver/pkg/server/config.go,
// MaxRequestBodyBytes); a recorded write cannot have been larger.
const maxSent = 3 << 20

// recorded is a recorded interaction and where it was recorded.
type recorded struct {
	it  cassette.Interaction
	loc history.Location
}

// gateEchoes holds back, in the recorded watch streams, each frame that
// echoes a recorded write (history.Write.Echo, as Build finds it). It
// holds it until the replay has answered that write. So the target's own
// change is not shown to it before it makes it, as no apiserver would.
// Reproducers without writes, and those no history models (traffic that
// breaks the watch contract on purpose), are served as recorded.
func (v *Replay) gateEchoes(files []*cassette.File) {
	writes := false
	for _, f := range files {
		for _, i := range f.Interactions {
			writes = writes || (i.Method != "" && i.Method != http.MethodGet && i.Method != http.MethodHead)
		}
	}
	if !writes {
		return
	}
	h, err := history.Build(files...)
	if err != nil {
		return
	}
	for _, w := range h.Writes {
		if w.EchoRV != "" && w.Echo.File != "" {
			g := make(chan struct{})
			v.echoes[w.Echo], v.opens[w.From] = g, g
		}
	}
}

// answered opens the gate of the echo of the write recorded at loc, if
// it has one. The caller holds v.mu.
func (v *Replay) answered(loc history.Location) {
	if g, ok := v.opens[loc]; ok {
		close(g)
		delete(v.opens, loc)
	}
}

// awaitWrite waits, when the frame recorded at loc echoes a write, until
// the write is answered; false when r ends or timeout fires first.
func (v *Replay) awaitWrite(r *http.Request, timeout *time.Timer, loc history.Location) bool {
	g, ok := v.echoes[loc]
	if !ok {
		return true
	}
	select {
	case <-g:
		return true
	case <-r.Context().Done():
	case <-timeout.C:
	}
	return false
}

// Mismatches returns the writes the replay did not answer with their
// recorded answer, in the order they came, joined (nil when there were
// none). Each wraps ErrMismatch and names the request and the recorded
// interaction.
func (v *Replay) Mismatches() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return errors.Join(v.mismatches...)
}

// readSent reads the body r sends, up to maxSent bytes and one more.
func readSent(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	return io.ReadAll(io.LimitReader(r.Body, maxSent+1))
}

// matching returns the index in q of the first recorded request r
// matches, or the error saying how r differs from the first of q. That is
// the next recorded write with r's body. (Creates of other objects to one
// collection may come in another order.)
func matching(method string, r *http.Request, q []recorded, sent []byte, readErr error) (int, error) {
	first := differs(method, r, q[0], sent, readErr)
	if first == nil || readErr != nil {
		return 0, first
	}
	for n := 1; n < len(q); n++ {
		if differs(method, r, q[n], sent, nil) == nil {
			return n, nil
		}
	}
	return 0, first
}

// differs returns why r, which sent body sent (or failed to: readErr), is
// not the write rec recorded. It is nil when it is, or when rec has no
// body to hold it to.
func differs(method string, r *http.Request, rec recorded, sent []byte, readErr error) error {
	want := rec.it.RequestBody
	if want == nil || rec.it.Header.Get(cassette.HeaderRedacted) != "" {
		return nil
	}
	what := fmt.Sprintf("%s %s (recorded at %s)", method, r.URL.RequestURI(), rec.loc)
	if readErr != nil {
		return fmt.Errorf("%w: %s: reading the body: %v", ErrMismatch, what, readErr)
	}
	got, rct := mediaOf(r.Header.Get("Content-Type")), mediaOf(rec.it.RequestHeader.Get("Content-Type"))
	if got != rct {
		return fmt.Errorf("%w: %s: the body is %s, recorded %s", ErrMismatch, what, got, rct)
	}
	if d := bodyDiff(got, sent, want); d != "" {
		return fmt.Errorf("%w: %s: %s", ErrMismatch, what, d)
	}
	return nil
}

// mediaOf is a Content-Type's media type, in lower case (JSON when
// absent: client-go's default).
func mediaOf(contentType string) string {
	if contentType == "" {
		return "application/json"
	}
	media, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return strings.ToLower(contentType)
	}
	return media
}

// bodyDiff says how body got differs from the recorded want, of media
// type media; it is "" when they are the same. JSON and the apply YAML
// compare as JSON values, so the encoding's layout does not count. Any
// other encoding (protobuf) compares byte for byte.
func bodyDiff(media string, got, want []byte) string {
	asJSON := media == "application/json" || strings.HasSuffix(media, "+json")
	if media == "application/apply-patch+yaml" {
		g, gerr := utilyaml.ToJSON(got)
		w, werr := utilyaml.ToJSON(want)
		if gerr == nil && werr == nil {
			got, want, asJSON = g, w, true
		}
	}
	if asJSON {
		g, gerr := decodeJSON(got)
		w, werr := decodeJSON(want)
		switch {
		case gerr != nil && werr == nil:
			return fmt.Sprintf("the body is not JSON (%v), the recorded one is", gerr)
		case gerr == nil && werr == nil:
			if path, ok := firstDiff(g, w, ""); !ok {
				return "they differ at " + path
			}
			return ""
		}
	}
	if bytes.Equal(got, want) {
		return ""
	}
	at := 0
	for at < len(got) && at < len(want) && got[at] == want[at] {
		at++
	}
	return fmt.Sprintf("%d bytes, recorded %d, first different at byte %d", len(got), len(want), at)
}

// decodeJSON decodes one JSON value, numbers as written.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// firstDiff reports whether JSON values a and b are equal. Else it
// returns the path of their first difference (".metadata.annotations.x",
// "[2]"; "the whole body" at the top).
func firstDiff(a, b any, path string) (string, bool) {
	here := path
	if here == "" {
		here = "the whole body"
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return here, false
		}
		keys := make([]string, 0, len(av)+len(bv))
		for k := range av {
			keys = append(keys, k)
		}
		for k := range bv {
			if _, ok := av[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, ok := firstDiff(av[k], bv[k], path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return here, false
		}
		for i := range av {
			if p, ok := firstDiff(av[i], bv[i], path+"["+strconv.Itoa(i)+"]"); !ok {
				return p, false
			}
		}
		return "", true
	}
	if !reflect.DeepEqual(a, b) {
		return here, false
	}
	return "", true
}
