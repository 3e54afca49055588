package cassette

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"
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
			Host: hostOf(i.URL),
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

// Save writes the cassette to path (which must end in .yaml) with go-vcr's
// encoder, creating its directory if needed. The file is written under a
// temporary name (not ending in .yaml, so LoadAll never picks it up) and
// renamed, so a reader never sees a half-written cassette.
func (f *File) Save(path string) error {
	name, ok := strings.CutSuffix(path, ".yaml")
	if !ok {
		return fmt.Errorf("%w: %s: a cassette file name must end in .yaml", ErrFormat, path)
	}
	vc := vcr.New(name)
	vc.MarshalFunc = marshalYAML
	for _, i := range f.Interactions {
		vc.AddInteraction(toVCR(i))
	}
	if err := vc.SaveWithFS(atomicFS{}); err != nil {
		return fmt.Errorf("save cassette %s: %w", path, err)
	}
	return nil
}

// atomicFS is a go-vcr file system whose writes go to a temporary file in
// the target's directory, renamed over the target once complete.
type atomicFS struct{}

func (atomicFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

func (atomicFS) IsFileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

func (atomicFS) WriteFile(name string, data []byte) (err error) {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// marshalYAML is the encoder go-vcr's own recorder uses.
var marshalYAML vcr.MarshalFunc = yaml.Marshal
