package cassette

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// wholeDecode loads path as one YAML document, as go-vcr does.
func wholeDecode(t *testing.T, path string) *File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := decode(path, data)
	if err != nil {
		t.Fatalf("decode %s: got error %v, want none", path, err)
	}
	return f
}

// sameFile compares a scanned file with a decoded one, reading bodies left
// in the file.
func sameFile(t *testing.T, got, want *File) {
	t.Helper()
	if len(got.Interactions) != len(want.Interactions) {
		t.Fatalf("%s: got %d interactions, want %d", got.Path, len(got.Interactions), len(want.Interactions))
	}
	for n := range want.Interactions {
		g, w := got.Interactions[n], want.Interactions[n]
		body, err := g.ReadBody()
		if err != nil {
			t.Fatalf("%s: interaction %d: ReadBody: got error %v, want none", got.Path, n, err)
		}
		if !bytes.Equal(body, w.Body) {
			t.Errorf("%s: interaction %d: body: got %d bytes %.80q, want %d bytes %.80q", got.Path, n, len(body), body, len(w.Body), w.Body)
		}
		if g.BodySize() != int64(len(w.Body)) {
			t.Errorf("%s: interaction %d: BodySize: got %d, want %d", got.Path, n, g.BodySize(), len(w.Body))
		}
		g.Body, w.Body, g.lazy = nil, nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: interaction %d: got %+v, want %+v", got.Path, n, g, w)
		}
	}
}

func TestScan_SameAsWholeDocument(t *testing.T) {
	var paths []string
	for _, glob := range []string{"../cassettes/*.yaml", "../testdata/*.yaml", "../testdata/*/*.yaml"} {
		m, _ := filepath.Glob(glob)
		paths = append(paths, m...)
	}
	n := 0
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		if _, err := decode(p, data); err != nil {
			continue // a malformed fixture: TestLoad_Malformed's
		}
		n++
		for _, lazy := range []bool{false, true} {
			t.Run(filepath.Base(p)+" - lazy "+map[bool]string{false: "off", true: "on"}[lazy]+" - pass", func(t *testing.T) {
				old := lazyMin
				lazyMin = 1
				defer func() { lazyMin = old }()
				got, err := scanFile(p, loadOptions{lazy: lazy})
				if err != nil {
					t.Fatalf("scan: got error %v, want none", err)
				}
				sameFile(t, got, wholeDecode(t, p))
			})
		}
	}
	if n < 10 {
		t.Fatalf("got %d loadable fixtures, want 10 or more", n)
	}
}

func TestScan_Bodies(t *testing.T) {
	long := strings.Repeat("x", 3<<20) // longer than the scanner's buffer
	tests := []struct {
		name string
		body string
	}{
		{"frames - clip - pass", "{\"type\":\"ADDED\"}\n{\"type\":\"DELETED\"}\n"},
		{"no final line break - strip - pass", "{\"a\":1}\n{\"b\":2}"},
		{"trailing line breaks - keep - pass", "{\"a\":1}\n\n\n"},
		{"blank lines inside - pass", "a\n\n\nb\n"},
		{"leading blank line - pass", "\na\nb\n"},
		{"trailing spaces and spaces-only line - pass", "a  \nb\t\n  \n"},
		{"CRLF - pass", "{\"a\":1}\r\n{\"b\":2}\r\n"},
		{"deeper-indented lines - pass", "{\n  \"kind\": \"Status\",\n    \"code\": 410\n}\n"},
		{"line longer than the read buffer - pass", "{\"a\":\"" + long + "\"}\n{\"b\":2}\n"},
		{"long line last, no break - pass", "a\n{\"a\":\"" + long + "\"}"},
		{"hash at a line start - pass", "a\n# not a comment\nb\n"},
		{"one-line document - pass", `{"kind":"ConfigMapList","items":[{"data":{"q":"it's"}}]}`},
		{"one-line document with quotes - pass", `{"a":"''","b":"'x'"}`},
		{"one-line document longer than the read buffer - pass", `{"a":"` + long + `'"}`},
	}
	for _, tt := range tests {
		for _, lazy := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: " (read)", true: " (left in file)"}[lazy], func(t *testing.T) {
				old := lazyMin
				lazyMin = 1
				defer func() { lazyMin = old }()
				path := filepath.Join(t.TempDir(), "c.yaml")
				f := New()
				f.Add(Interaction{URL: "https://h/api/v1/pods?watch=true", Code: 200, Body: []byte(tt.body)})
				f.Add(Interaction{URL: "https://h/api/v1/pods", Code: 200, Body: []byte(`{"items":[]}`)})
				if err := f.Save(path); err != nil {
					t.Fatal(err)
				}
				got, err := scanFile(path, loadOptions{lazy: lazy})
				if err != nil {
					t.Fatalf("scan: got error %v, want none", err)
				}
				sameFile(t, got, wholeDecode(t, path))
				text := readFile(t, path)
				text = text[strings.Index(text, "response:"):]
				text = strings.TrimSpace(text[strings.Index(text, "body:"):])
				if want := strings.HasPrefix(text, "body: |") || strings.HasPrefix(text, "body: '"); lazy && got.Interactions[0].BodyInFile() != want {
					t.Errorf("BodyInFile: got %v, want %v (a literal block or a one-line quoted scalar)", got.Interactions[0].BodyInFile(), want)
				}
			})
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestScan_ChangedFile(t *testing.T) {
	old := lazyMin
	lazyMin = 1
	defer func() { lazyMin = old }()
	path := filepath.Join(t.TempDir(), "c.yaml")
	f := New()
	f.Add(Interaction{URL: "https://h/api/v1/pods?watch=true", Code: 200, Body: []byte("{\"a\":1}\n{\"b\":2}\n")})
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path, WithLazyBodies(true))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Interactions[0].BodyInFile() {
		t.Fatalf("BodyInFile: got false, want true")
	}
	if err := os.WriteFile(path, append([]byte(readFile(t, path)), "# more\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = got.Interactions[0].ReadBody()
	checkErr(t, err, "c.yaml: the file changed since it was loaded")
}
