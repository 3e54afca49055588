package cassette

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"
	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// keptFS is a go-vcr file system that keeps what is written.
type keptFS map[string][]byte

func (m keptFS) ReadFile(name string) ([]byte, error) { return m[name], nil }
func (m keptFS) IsFileExists(name string) bool        { _, ok := m[name]; return ok }
func (m keptFS) WriteFile(name string, data []byte) error {
	m[name] = data
	return nil
}

// vcrBytes returns what go-vcr's own Save writes for interactions.
func vcrBytes(t *testing.T, interactions []Interaction) []byte {
	t.Helper()
	vc := vcr.New("x")
	vc.MarshalFunc = yaml.Marshal
	for _, i := range interactions {
		vc.AddInteraction(toVCR(i))
	}
	fs := keptFS{}
	if err := vc.SaveWithFS(fs); err != nil {
		t.Fatalf("go-vcr Save: got error %v, want none", err)
	}
	return fs["x.yaml"]
}

// written returns what a Writer writes for interactions, streaming every
// body with AddStream when stream is set.
func written(t *testing.T, interactions []Interaction, stream bool) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.yaml")
	w, err := Create(path)
	if err != nil {
		t.Fatalf("Create: got error %v, want none", err)
	}
	for _, i := range interactions {
		if stream {
			body := i.Body
			i.Body = []byte("ignored")
			err = w.AddStream(i, io.NewSectionReader(bytes.NewReader(body), 0, int64(len(body))))
		} else {
			err = w.Add(i)
		}
		if err != nil {
			t.Fatalf("Add: got error %v, want none", err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: got error %v, want none", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// firstDiff says where got and want first differ.
func firstDiff(got, want []byte) string {
	n := 0
	for n < len(got) && n < len(want) && got[n] == want[n] {
		n++
	}
	around := func(b []byte) string { return fmt.Sprintf("%q", b[max(0, n-40):min(len(b), n+40)]) }
	return fmt.Sprintf("at byte %d: got %s, want %s", n, around(got), around(want))
}

func TestWriter_SameBytesAsGoVCR_Fixtures(t *testing.T) {
	var paths []string
	for _, dir := range []string{"../cassettes", "../testdata"} {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
				paths = append(paths, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	loaded := 0
	for _, p := range paths {
		f, err := Load(p)
		if err != nil {
			continue // a malformed fixture
		}
		loaded++
		for _, stream := range []bool{false, true} {
			name := p + " - Add - pass"
			if stream {
				name = p + " - AddStream - pass"
			}
			t.Run(name, func(t *testing.T) {
				got, want := written(t, f.Interactions, stream), vcrBytes(t, f.Interactions)
				if !bytes.Equal(got, want) {
					t.Errorf("bytes differ from go-vcr's %s", firstDiff(got, want))
				}
			})
		}
	}
	if loaded < 5 {
		t.Errorf("fixtures loaded: got %d, want at least 5", loaded)
	}
}

func TestWriter_SameBytesAsGoVCR_Bodies(t *testing.T) {
	frames := `{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}` + "\n" +
		`{"type":"MODIFIED","object":{"kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v: x # y"}}}` + "\n"
	long := strings.Repeat(`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"12345"}}}`+"\n", 5000)
	tests := []struct {
		name      string
		body      string
		wantShape blockShape
	}{
		{"watch frames - literal - pass", frames, literalClip},
		{"large body across chunks - literal - pass", long, literalClip},
		{"no final line break - literal strip - pass", strings.TrimSuffix(frames, "\n"), literalStrip},
		{"empty line inside - literal - pass", "{}\n\n{}\n", literalClip},
		{"trailing spaces on a line - literal - pass", "{} \n{}\n", literalClip},
		{"tabs and a line of spaces - literal - pass", "a\tb\n   \nc\n", literalClip},
		{"unicode - literal - pass", "{\"name\":\"caf\u00e9 \u65e5\u672c\"}\n{}\n", literalClip},
		{"unicode cut at a chunk end - literal - pass", strings.Repeat("x", 64<<10-1) + "\u00e9\u65e5\n", literalClip},
		{"looks like YAML - literal - pass", "--- a: [b]\n- c: |\n", literalClip},
		{"one-line JSON - not literal - pass", `{"kind":"Status","code":410}`, notLiteral},
		{"empty - not literal - pass", "", notLiteral},
		{"one line break - not literal - pass", "\n", notLiteral},
		{"leading space - not literal - pass", " {}\n{}\n", notLiteral},
		{"leading tab - not literal - pass", "\t{}\n{}\n", notLiteral},
		{"leading line break - not literal - pass", "\n{}\n", notLiteral},
		{"two final line breaks - not literal - pass", "{}\n{}\n\n", notLiteral},
		{"carriage return - not literal - pass", "{}\r\n{}\r\n", notLiteral},
		{"control character - not literal - pass", "{}\x01\n{}\n", notLiteral},
		{"DEL - not literal - pass", "{}\x7f\n{}\n", notLiteral},
		{"invalid UTF-8 - not literal - pass", "{}\xff\n{}\n", notLiteral},
		{"UTF-8 cut at the end - not literal - pass", "{}\n{}\xe6\x97", notLiteral},
		{"four-byte rune - not literal - pass", "{\"e\":\"\U0001F600\"}\n", notLiteral},
		{"line separator - not literal - pass", "{}\u2028{}\n", notLiteral},
		{"byte order mark - not literal - pass", "{}\ufeff\n", notLiteral},
		{"no-break space first - not literal - pass", "\u00a0{}\n", notLiteral},
		{"C1 control - not literal - pass", "{}\u0085\n", notLiteral},
		{"holds the probe - literal - pass", probeBody + probeBody, literalClip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shape, err := literalShape(io.NewSectionReader(strings.NewReader(tt.body), 0, int64(len(tt.body))))
			if err != nil {
				t.Fatalf("literalShape: got error %v, want none", err)
			}
			if shape != tt.wantShape {
				t.Errorf("literalShape: got %v, want %v", shape, tt.wantShape)
			}
			is := []Interaction{
				{URL: listURL, Code: 200, Body: []byte(`{"kind":"ConfigMapList","items":[]}`)},
				{URL: listURL + "&watch=true", Code: 200, Body: []byte(tt.body), Started: time.Unix(5, 0),
					FrameOffsets: []time.Duration{0, time.Second}, StreamEnd: EndEOF},
				{URL: listURL + "&x=" + probeBody[:10], Code: 410, Body: []byte(tt.body)},
			}
			want := vcrBytes(t, is)
			for _, stream := range []bool{false, true} {
				if got := written(t, is, stream); !bytes.Equal(got, want) {
					t.Errorf("stream %v: bytes differ from go-vcr's %s", stream, firstDiff(got, want))
				}
			}
		})
	}
}

func TestWriter_Empty(t *testing.T) {
	got, want := written(t, nil, false), vcrBytes(t, nil)
	if !bytes.Equal(got, want) {
		t.Errorf("empty cassette: got %q, want %q", got, want)
	}
}

// failingReader fails once read past after bytes.
type failingReader struct {
	data  []byte
	after int64
}

var errRead = errors.New("disk gone")

func (r failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > r.after {
		return 0, errRead
	}
	return copy(p, r.data[off:]), nil
}

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriter_NothingLeftBehind(t *testing.T) {
	body := []byte(strings.Repeat(`{"type":"ADDED","object":{}}`+"\n", 10000))
	ok := Interaction{URL: listURL, Code: 200, Body: []byte("{}")}
	tests := []struct {
		name    string
		run     func(w *Writer) error
		wantErr error
	}{
		{"abort after writing - pass", func(w *Writer) error {
			if err := w.Add(ok); err != nil {
				return err
			}
			w.Abort()
			return nil
		}, nil},
		{"body read fails in the pre-scan - fail", func(w *Writer) error {
			return w.AddStream(ok, io.NewSectionReader(failingReader{body, 100}, 0, int64(len(body))))
		}, errRead},
		{"body read fails while copying - fail", func(w *Writer) error {
			// the pre-scan reads in 64 KiB chunks; the copy's reads are
			// smaller at the end, so fail only there
			return w.AddStream(ok, io.NewSectionReader(&failSecond{data: body}, 0, int64(len(body))))
		}, errRead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "c.yaml")
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := Create(path)
			if err != nil {
				t.Fatalf("Create: got error %v, want none", err)
			}
			err = tt.run(w)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("write: got error %v, want %v", err, tt.wantErr)
			}
			if err := w.Close(); err == nil {
				t.Errorf("Close after the failure: got no error, want one")
			}
			if got := dirEntries(t, dir); len(got) != 1 || got[0] != "c.yaml" {
				t.Errorf("files left: got %v, want [c.yaml]", got)
			}
			if got, _ := os.ReadFile(path); string(got) != "old" {
				t.Errorf("target: got %.20q, want it unchanged", got)
			}
		})
	}
}

// failSecond serves the first full pass over data and fails the second.
type failSecond struct {
	data   []byte
	passes int
}

func (r *failSecond) ReadAt(p []byte, off int64) (int, error) {
	if off == 0 {
		r.passes++
	}
	if r.passes > 1 && off > 0 {
		return 0, errRead
	}
	n := copy(p, r.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func TestWriter_Errors(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, dir string) error
		want error // nil: any
	}{
		{"name without .yaml - fail", func(t *testing.T, dir string) error {
			_, err := Create(filepath.Join(dir, "c.yml"))
			return err
		}, ErrFormat},
		{"add after close - fail", func(t *testing.T, dir string) error {
			w, err := Create(filepath.Join(dir, "c.yaml"))
			if err != nil {
				return err
			}
			if err := w.Close(); err != nil {
				return err
			}
			return w.Add(Interaction{URL: listURL, Code: 200})
		}, errWriterDone},
		{"target is a directory - fail", func(t *testing.T, dir string) error {
			if err := os.Mkdir(filepath.Join(dir, "c.yaml"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "c.yaml", "x"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := Create(filepath.Join(dir, "c.yaml"))
			if err != nil {
				return err
			}
			return w.Close()
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			err := tt.run(t, dir)
			if err == nil {
				t.Fatalf("got no error, want %v", tt.want)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("got error %v, want %v", err, tt.want)
			}
			for _, n := range dirEntries(t, dir) {
				if strings.HasSuffix(n, ".tmp") {
					t.Errorf("files left: got %s, want no temporary file", n)
				}
			}
		})
	}
}
