package cassette

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// formatOffsets renders offsets as a X-Lwreplay-Frame-Offsets value.
func formatOffsets(offs []time.Duration) string {
	var b strings.Builder
	for k, o := range offs {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(o.Milliseconds(), 10))
	}
	return b.String()
}

func toVCR(i Interaction) *vcr.Interaction {
	h := i.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(HeaderFormat, strconv.Itoa(FormatVersion))
	if !i.Started.IsZero() {
		h.Set(HeaderStarted, i.Started.UTC().Format(time.RFC3339Nano))
	}
	if len(i.FrameOffsets) > 0 {
		h.Set(HeaderFrameOffsets, formatOffsets(i.FrameOffsets))
	}
	if i.StreamEnd != "" {
		h.Set(HeaderStreamEnd, i.StreamEnd)
	}
	if i.Replay != "" {
		h.Set(HeaderReplay, i.Replay)
	}
	method := i.Method
	if method == "" {
		method = http.MethodGet
	}
	return &vcr.Interaction{
		Request: vcr.Request{
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Method: method, URL: i.URL, Headers: i.RequestHeader,
			Host: hostOf(i.URL), Body: string(i.RequestBody), ContentLength: int64(len(i.RequestBody)),
		},
		Response: vcr.Response{
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Code: i.Code, Status: fmt.Sprintf("%d %s", i.Code, http.StatusText(i.Code)),
			Headers: h, Body: string(i.Body), ContentLength: int64(len(i.Body)),
			Duration: i.Duration,
		},
	}
}

func hostOf(u string) string {
	rest, ok := strings.CutPrefix(u, "https://")
	if !ok {
		rest, _ = strings.CutPrefix(u, "http://")
	}
	if k := strings.IndexByte(rest, '/'); k >= 0 {
		rest = rest[:k]
	}
	return rest
}

// Save writes the cassette to path (which must end in .yaml) in the bytes
// go-vcr's encoder writes, creating its directory if needed. It writes
// with a Writer, one interaction at a time, under a temporary name
// renamed into place. (The name does not end in .yaml, so LoadAll never
// picks it up.) So a reader never sees a half-written cassette, and a
// failed save leaves nothing behind.
func (f *File) Save(path string) error {
	w, err := Create(path)
	if err != nil {
		return err
	}
	for _, i := range f.Interactions {
		if err := w.Add(i); err != nil {
			return err
		}
	}
	return w.Close()
}
