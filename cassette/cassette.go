// Package cassette reads and writes lwreplay cassettes: go-vcr v4 cassette
// files in which every interaction is one HTTP exchange between a Kubernetes
// client and kube-apiserver (a LIST page, a watch stream, a discovery answer,
// an error answer).
//
// A watch interaction's response body holds the exact wire bytes of the
// stream: newline-delimited JSON watch events. Two optional response headers
// carry what go-vcr has no field for:
//
//	X-Lwreplay-Started:       when the request was sent (RFC 3339, nanoseconds)
//	X-Lwreplay-Frame-Offsets: per watch frame, its arrival offset in
//	                          milliseconds since the response began
//	                          (comma-separated decimal, one per frame)
//
// and every interaction lwreplay writes carries X-Lwreplay-Format with the
// format version, checked on load. A cassette without these headers (for
// example one written by go-vcr's own recorder) loads too and replays
// events back-to-back.
//
// Typical use:
//
//	files, err := cassette.LoadAll("cassettes/configmaps.yaml")
//	...
//	c := cassette.New()
//	c.Add(cassette.Interaction{Method: "GET", URL: u, Code: 200, Body: body})
//	err = c.Save("out.yaml")
package cassette

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"
	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// FormatVersion is the version of the lwreplay cassette format this package
// writes and the newest one it reads.
const FormatVersion = 1

// Header names lwreplay adds to recorded responses.
const (
	HeaderFormat       = "X-Lwreplay-Format"
	HeaderStarted      = "X-Lwreplay-Started"
	HeaderFrameOffsets = "X-Lwreplay-Frame-Offsets"
	HeaderStreamEnd    = "X-Lwreplay-Stream-End"
	HeaderReplay       = "X-Lwreplay-Replay"
)

// How a recorded watch stream ended (Interaction.StreamEnd).
const (
	// EndEOF: the server ended the stream (a timeout, a closed watch).
	EndEOF = "eof"
	// EndError: the stream broke (a cut connection, a reset).
	EndError = "error"
	// EndClosed: the client closed the stream; the server would have gone on.
	EndClosed = "closed"
)

// ReplayVerbatim marks an interaction of a reproducer cassette: it is
// replayed as recorded, in order, rather than modelled from a history.
const ReplayVerbatim = "verbatim"

// MarkVerbatim marks i to be replayed as recorded (Replay =
// ReplayVerbatim). Given to a recorder as its before-save hook
// (recorder.WithBeforeSave), it makes the recording a reproducer as it is
// written.
func MarkVerbatim(i *Interaction) { i.Replay = ReplayVerbatim }

// IsVerbatim reports whether files hold a reproducer, to be replayed
// verbatim: they have interactions, and every one is marked so.
func IsVerbatim(files ...*File) bool {
	n := 0
	for _, f := range files {
		for _, i := range f.Interactions {
			if i.Replay != ReplayVerbatim {
				return false
			}
			n++
		}
	}
	return n > 0
}

// ErrFormat is wrapped by every error about a cassette's content.
var ErrFormat = errors.New("bad cassette")

// Interaction is one recorded HTTP exchange.
type Interaction struct {
	// Method is the request method, e.g. "GET".
	Method string
	// URL is the full request URL.
	URL string
	// RequestHeader holds the request headers kept in the file.
	RequestHeader http.Header
	// Code is the HTTP status code of the answer.
	Code int
	// Header holds the response headers (without the lwreplay headers,
	// which have fields of their own).
	Header http.Header
	// Body is the response body: a whole document, or a watch stream's
	// frames as they arrived.
	Body []byte
	// Started is when the request was sent; zero when not recorded.
	Started time.Time
	// Duration is how long the response took to complete.
	Duration time.Duration
	// FrameOffsets holds, for a watch stream, each frame's arrival offset
	// since the response began; nil when not recorded.
	FrameOffsets []time.Duration
	// StreamEnd says how a watch stream ended: EndEOF, EndError or
	// EndClosed; "" when not recorded.
	StreamEnd string
	// Replay is ReplayVerbatim for interactions replayed as recorded;
	// "" for traffic the replayer models from a history.
	Replay string
}

// File is a cassette file's interactions, in recorded order.
type File struct {
	// Path is where the file was loaded from, or will be saved to.
	Path string
	// Interactions holds the exchanges in recorded order.
	Interactions []Interaction
}

// New returns an empty cassette.
func New() *File { return &File{} }

// Add appends an interaction.
func (f *File) Add(i Interaction) { f.Interactions = append(f.Interactions, i) }

// Load reads one cassette file. Errors name the file and, where it applies,
// the interaction.
func Load(path string) (*File, error) {
	name := strings.TrimSuffix(path, ".yaml")
	if name == path {
		return nil, fmt.Errorf("%w: %s: a cassette file name must end in .yaml", ErrFormat, path)
	}
	vc, err := loadVCR(name)
	if err != nil {
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe):
			return nil, fmt.Errorf("%w: %s: %w", ErrFormat, path, pe.Err)
		case errors.Is(err, vcr.ErrUnsupportedCassetteFormat):
			return nil, fmt.Errorf("%w: %s: go-vcr cassette format version %s; lwreplay reads version %d", ErrFormat, path, vcrVersion(path), vcr.CassetteFormatVersion)
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, path, err)
	}
	if len(vc.Interactions) == 0 && vcrVersion(path) == "missing" {
		// go-vcr takes an empty document for an empty cassette.
		return nil, fmt.Errorf("%w: %s: not a go-vcr cassette (no version field)", ErrFormat, path)
	}
	f := &File{Path: path, Interactions: make([]Interaction, 0, len(vc.Interactions))}
	for n, vi := range vc.Interactions {
		if vi == nil {
			return nil, fmt.Errorf("%w: %s: interaction %d: empty", ErrFormat, path, n)
		}
		i, err := fromVCR(vi)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: interaction %d: %v", ErrFormat, path, n, err)
		}
		f.Interactions = append(f.Interactions, i)
	}
	return f, nil
}

// loadVCR calls go-vcr's loader, turning a panic inside its YAML decoder
// into an error so that no input can crash the caller.
func loadVCR(name string) (c *vcr.Cassette, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("unreadable YAML: %v", r)
		}
	}()
	return vcr.Load(name)
}

// vcrVersion reads the version field of a cassette go-vcr refused.
func vcrVersion(path string) string {
	var v struct {
		Version any `yaml:"version"`
	}
	data, err := os.ReadFile(path)
	if err != nil || yaml.Unmarshal(data, &v) != nil || v.Version == nil {
		return "missing"
	}
	return fmt.Sprint(v.Version)
}

// LoadAll reads cassette files and directories of them (their *.yaml files in
// name order), in the order given.
func LoadAll(paths ...string) ([]*File, error) {
	var files []*File
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		names := []string{p}
		if st.IsDir() {
			names, err = filepath.Glob(filepath.Join(p, "*.yaml"))
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrFormat, p, err)
			}
			sort.Strings(names)
			if len(names) == 0 {
				return nil, fmt.Errorf("%w: %s: no *.yaml cassette in directory", ErrFormat, p)
			}
		}
		for _, n := range names {
			f, err := Load(n)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
	}
	return files, nil
}

func fromVCR(vi *vcr.Interaction) (Interaction, error) {
	h := vi.Response.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	i := Interaction{
		Method:        vi.Request.Method,
		URL:           vi.Request.URL,
		RequestHeader: vi.Request.Headers,
		Code:          vi.Response.Code,
		Body:          []byte(vi.Response.Body),
		Duration:      vi.Response.Duration,
	}
	if v := h.Get(HeaderFormat); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return i, fmt.Errorf("header %s: %q is not a format version", HeaderFormat, v)
		}
		if n > FormatVersion {
			return i, fmt.Errorf("format version %d is newer than this lwreplay reads (%d)", n, FormatVersion)
		}
	}
	if v := h.Get(HeaderStarted); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return i, fmt.Errorf("header %s: %v", HeaderStarted, err)
		}
		i.Started = t
	}
	if v := h.Get(HeaderFrameOffsets); v != "" {
		offs, err := parseOffsets(v)
		if err != nil {
			return i, fmt.Errorf("header %s: %v", HeaderFrameOffsets, err)
		}
		i.FrameOffsets = offs
	}
	switch v := h.Get(HeaderStreamEnd); v {
	case "", EndEOF, EndError, EndClosed:
		i.StreamEnd = v
	default:
		return i, fmt.Errorf("header %s: %q is not one of %s, %s, %s", HeaderStreamEnd, v, EndEOF, EndError, EndClosed)
	}
	switch v := h.Get(HeaderReplay); v {
	case "", ReplayVerbatim:
		i.Replay = v
	default:
		return i, fmt.Errorf("header %s: %q is not %s", HeaderReplay, v, ReplayVerbatim)
	}
	h.Del(HeaderFormat)
	h.Del(HeaderStarted)
	h.Del(HeaderFrameOffsets)
	h.Del(HeaderStreamEnd)
	h.Del(HeaderReplay)
	i.Header = h
	if i.Method == "" {
		i.Method = http.MethodGet
	}
	if i.URL == "" {
		return i, errors.New("request has no url")
	}
	if i.Code == 0 {
		// Every HTTP answer has a status code, and go-vcr writes it after
		// the body: a file cut short inside its last interaction lacks it.
		return i, errors.New("response has no status code (is the file truncated?)")
	}
	return i, nil
}

// parseOffsets parses a X-Lwreplay-Frame-Offsets value.
func parseOffsets(v string) ([]time.Duration, error) {
	parts := strings.Split(v, ",")
	out := make([]time.Duration, 0, len(parts))
	for k, p := range parts {
		ms, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || ms < 0 {
			return nil, fmt.Errorf("frame %d: %q is not a non-negative millisecond count", k, p)
		}
		out = append(out, time.Duration(ms)*time.Millisecond)
	}
	return out, nil
}

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
