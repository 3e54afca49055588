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

// LoadOption configures Load and LoadRecordings.
type LoadOption func(*loadOptions)

type loadOptions struct {
	salvage bool
	lazy    bool
}

func loadDefaults() loadOptions { return loadOptions{salvage: false, lazy: false} }

// WithLazyBodies leaves large response bodies in the cassette file (off by
// default). A watch stream's frames of a megabyte or more, written as
// go-vcr's encoder writes them (a YAML literal block), are not read into
// memory. The interaction's Body is nil. OpenBody or ReadBody reads them
// from the file when asked; it is an error if the file changed since.
// Memory then follows the interactions' metadata, not the file's size.
func WithLazyBodies(on bool) LoadOption { return func(o *loadOptions) { o.lazy = on } }

// WithSalvage makes a load keep the complete interactions of a file cut
// short. It is off by default: such a file is an error naming the file,
// the interaction and its line. Only a cut confined to the last
// interaction is salvaged: one whose response has no status code, or
// YAML that stops parsing inside it. The file then loads without that
// interaction, and File.Damage says what was dropped. Any other damage
// is an error still.
func WithSalvage(on bool) LoadOption { return func(o *loadOptions) { o.salvage = on } }

// Damage says what a salvaging load (WithSalvage) dropped from a file cut
// short.
type Damage struct {
	// Kept counts the complete interactions kept.
	Kept int
	// Dropped counts the interactions dropped: the cut last one.
	Dropped int
	// Cause is the error the file gives without salvage.
	Cause error
}

// String says what was kept and dropped, and why.
func (d *Damage) String() string {
	return fmt.Sprintf("kept %d complete interactions, dropped %d cut short (%v)", d.Kept, d.Dropped, d.Cause)
}

// truncation is the error of an interaction that a file cut short leaves
// behind. go-vcr writes the status code after the body and headers. So
// the last interaction of a cut file lacks it, or holds a part of it.
type truncation struct{ msg string }

func (t truncation) Error() string { return t.msg }

// Load reads one cassette file. Errors wrap ErrFormat and name the file
// and, where it applies, the interaction and the line it starts on.
//
// A file laid out as go-vcr writes one is read interaction by interaction,
// each decoded on its own. So memory follows the largest interaction (or,
// with WithLazyBodies, the metadata), never the whole document. Any other
// layout (flow style, say) is decoded as one YAML document.
func Load(path string, opts ...LoadOption) (*File, error) {
	o := loadDefaults()
	for _, fn := range opts {
		fn(&o)
	}
	if !strings.HasSuffix(path, ".yaml") {
		return nil, fmt.Errorf("%w: %s: a cassette file name must end in .yaml", ErrFormat, path)
	}
	f, err := scanFile(path, o)
	if !errors.Is(err, errLayout) {
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = fmt.Errorf("%w: %s: %w", ErrFormat, path, pe.Err)
			}
		}
		return f, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrFormat, path, err)
	}
	f, err = decode(path, data)
	if err == nil || !o.salvage {
		return f, err
	}
	return salvage(path, data, err)
}

// salvage loads data without its last interaction when the damage cause
// reports is confined to it.
func salvage(path string, data []byte, cause error) (*File, error) {
	starts := itemStarts(data)
	if len(starts) == 0 {
		return nil, cause
	}
	var cut truncation
	f, err := decode(path, data[:starts[len(starts)-1].offset])
	switch {
	case err != nil:
		return nil, cause // damaged before its last interaction
	case errors.As(cause, &cut) && len(f.Interactions) != len(starts)-1:
		return nil, cause
	case !errors.As(cause, &cut) && !isYAMLError(cause):
		return nil, cause // a complete interaction lwreplay cannot read
	}
	f.Damage = &Damage{Kept: len(f.Interactions), Dropped: 1, Cause: cause}
	return f, nil
}

// yamlError marks an error of go-vcr's YAML decoding.
type yamlError struct{ err error }

func (e yamlError) Error() string { return e.err.Error() }
func (e yamlError) Unwrap() error { return e.err }

func isYAMLError(err error) bool {
	var ye yamlError
	return errors.As(err, &ye)
}

// decode reads a cassette file's bytes.
func decode(path string, data []byte) (*File, error) {
	vc, err := loadVCR(path, data)
	if err != nil {
		if errors.Is(err, vcr.ErrUnsupportedCassetteFormat) {
			return nil, fmt.Errorf("%w: %s: go-vcr cassette format version %s; lwreplay reads version %d", ErrFormat, path, vcrVersion(data), vcr.CassetteFormatVersion)
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrFormat, path, yamlError{err})
	}
	if len(vc.Interactions) == 0 && vcrVersion(data) == "missing" {
		// go-vcr takes an empty document for an empty cassette.
		return nil, fmt.Errorf("%w: %s: not a go-vcr cassette (no version field)", ErrFormat, path)
	}
	f := &File{Path: path, Interactions: make([]Interaction, 0, len(vc.Interactions))}
	for n, vi := range vc.Interactions {
		var i Interaction
		if vi == nil {
			err = errors.New("empty")
		} else {
			i, err = fromVCR(vi)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %s: %w", ErrFormat, path, where(data, n, len(vc.Interactions)), err)
		}
		f.Interactions = append(f.Interactions, i)
	}
	return f, nil
}

// where names interaction n of a file of count interactions: "interaction
// 3 (line 87)", without the line when it cannot be found.
func where(data []byte, n, count int) string {
	if starts := itemStarts(data); len(starts) == count {
		return fmt.Sprintf("interaction %d (line %d)", n, starts[n].line)
	}
	return fmt.Sprintf("interaction %d", n)
}

// loadVCR calls go-vcr's loader on data, turning a panic inside its YAML
// decoder into an error so that no input can crash the caller.
func loadVCR(path string, data []byte) (c *vcr.Cassette, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("unreadable YAML: %v", r)
		}
	}()
	return vcr.LoadWithFS(strings.TrimSuffix(path, ".yaml"), memFS(data))
}

// memFS is a go-vcr file system holding one file's bytes, read already.
type memFS []byte

func (m memFS) ReadFile(string) ([]byte, error)     { return m, nil }
func (memFS) WriteFile(name string, _ []byte) error { return fmt.Errorf("%s: read-only", name) }
func (memFS) IsFileExists(string) bool              { return true }

// vcrVersion reads the version field of a cassette go-vcr refused.
func vcrVersion(data []byte) string {
	var v struct {
		Version any `yaml:"version"`
	}
	if yaml.Unmarshal(data, &v) != nil || v.Version == nil {
		return "missing"
	}
	return fmt.Sprint(v.Version)
}

// LoadAll reads cassette files and directories of them (their *.yaml files in
// name order), in the order given. It reads each file as it is. history.Build
// takes them only when they are one recording; LoadRecordings groups them.
func LoadAll(paths ...string) ([]*File, error) {
	return loadAll(paths, loadDefaults())
}

func loadAll(paths []string, o loadOptions) ([]*File, error) {
	names, err := Expand(paths...)
	if err != nil {
		return nil, err
	}
	files := make([]*File, 0, len(names))
	for _, n := range names {
		f, err := Load(n, func(lo *loadOptions) { *lo = o })
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// Expand lists the cassette files paths name, in the order given. A file
// is listed as it is, a directory as its *.yaml files in name order. A
// glob pattern that names no file is listed as its matches in name
// order. The error names the path that gives no file. Every verb,
// LoadAll and fuzz.Glob expand paths so.
func Expand(paths ...string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		switch {
		case err == nil && st.IsDir():
			names, _ := filepath.Glob(filepath.Join(p, "*.yaml"))
			if len(names) == 0 {
				return nil, fmt.Errorf("%w: %s: no *.yaml cassette in directory", ErrFormat, p)
			}
			sort.Strings(names)
			out = append(out, names...)
		case err == nil:
			out = append(out, p)
		default:
			names, gerr := filepath.Glob(p)
			if gerr != nil || len(names) == 0 {
				return nil, fmt.Errorf("%w: %v", ErrFormat, err)
			}
			sort.Strings(names)
			out = append(out, names...)
		}
	}
	return out, nil
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
		RequestBody:   requestBody(vi.Request.Body),
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
	switch {
	case i.Code == 0:
		// Every HTTP answer has a status code, and go-vcr writes it after
		// the body: a file cut short inside its last interaction lacks it.
		return i, truncation{"response has no status code (is the file truncated?)"}
	case i.Code < 100 || i.Code > 999:
		return i, truncation{fmt.Sprintf("response status code %d is not an HTTP status code (is the file truncated?)", i.Code)}
	}
	return i, nil
}

// requestBody returns a recorded request body; nil for none.
func requestBody(b string) []byte {
	if b == "" {
		return nil
	}
	return []byte(b)
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
