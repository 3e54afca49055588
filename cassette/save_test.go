package cassette

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSave_TimingRoundTrip(t *testing.T) {
	started := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.FixedZone("X", 3600))
	tests := []struct {
		name        string
		in          Interaction
		wantStarted time.Time
		wantOffsets []time.Duration
	}{
		{"offsets and start - pass",
			Interaction{URL: listURL, Code: 200, Body: []byte(watchBody), Started: started, Duration: 2 * time.Second,
				FrameOffsets: []time.Duration{0, 15 * time.Millisecond, 1500 * time.Millisecond}},
			started, []time.Duration{0, 15 * time.Millisecond, 1500 * time.Millisecond}},
		{"sub-millisecond offsets truncate - pass",
			Interaction{URL: listURL, Code: 200, Started: started, FrameOffsets: []time.Duration{1500 * time.Microsecond, time.Hour + time.Microsecond}},
			started, []time.Duration{time.Millisecond, time.Hour}},
		{"start without offsets - pass",
			Interaction{URL: listURL, Code: 200, Started: started},
			started, nil},
		{"empty offsets load as none - pass",
			Interaction{URL: listURL, Code: 200, FrameOffsets: []time.Duration{}},
			time.Time{}, nil},
		{"no timing - pass",
			Interaction{URL: listURL, Code: 200},
			time.Time{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.yaml")
			f := New()
			f.Add(tt.in)
			if err := f.Save(path); err != nil {
				t.Fatalf("Save: got error %v, want none", err)
			}
			back, err := Load(path)
			if err != nil {
				t.Fatalf("Load: got error %v, want none", err)
			}
			got := back.Interactions[0]
			if !got.Started.Equal(tt.wantStarted) {
				t.Errorf("Started: got %v, want %v", got.Started, tt.wantStarted)
			}
			if !reflect.DeepEqual(got.FrameOffsets, tt.wantOffsets) {
				t.Errorf("FrameOffsets: got %v, want %v", got.FrameOffsets, tt.wantOffsets)
			}
			if got.Duration != tt.in.Duration {
				t.Errorf("Duration: got %v, want %v", got.Duration, tt.in.Duration)
			}
			for _, h := range []string{HeaderFormat, HeaderStarted, HeaderFrameOffsets} {
				if v, ok := got.Header[h]; ok {
					t.Errorf("Header: got %s=%v, want it moved to its own field", h, v)
				}
			}
		})
	}
}

func TestOffsets_FormatParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []time.Duration
		wantErr bool
	}{
		{"one - pass", "7", []time.Duration{7 * time.Millisecond}, false},
		{"several with spaces - pass", "0, 5,10", []time.Duration{0, 5 * time.Millisecond, 10 * time.Millisecond}, false},
		{"empty - fail", "", nil, true},
		{"empty field - fail", "1,,2", nil, true},
		{"negative - fail", "1,-2", nil, true},
		{"fraction - fail", "1.5", nil, true},
		{"overflow - fail", "99999999999999999999", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOffsets(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseOffsets(%q): got error %v, want error %v", tt.in, err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseOffsets(%q): got %v, want %v", tt.in, got, tt.want)
			}
			if err == nil {
				if again, _ := parseOffsets(formatOffsets(got)); !reflect.DeepEqual(again, got) {
					t.Errorf("ParseOffsets(FormatOffsets(%v)): got %v, want the same", got, again)
				}
			}
		})
	}
}

// saveNamed saves a one-interaction cassette whose URL names it.
func saveNamed(t *testing.T, path string) {
	t.Helper()
	f := New()
	f.Add(Interaction{URL: "https://h/api/v1/" + filepath.Base(path), Code: 200, Body: []byte("{}")})
	if err := f.Save(path); err != nil {
		t.Fatalf("Save %s: got error %v, want none", path, err)
	}
}

func TestLoadAll(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.yaml", "a.yaml", "c.yaml", "sub/d.yaml"} {
		saveNamed(t, filepath.Join(dir, n))
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a cassette"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		paths   []string
		want    []string // base names loaded, in order
		wantErr string
	}{
		{"directory - name order - pass", []string{dir}, []string{"a.yaml", "b.yaml", "c.yaml"}, ""},
		{"files - order given - pass", []string{filepath.Join(dir, "c.yaml"), filepath.Join(dir, "a.yaml")}, []string{"c.yaml", "a.yaml"}, ""},
		{"file then directory - pass", []string{filepath.Join(dir, "sub/d.yaml"), dir}, []string{"d.yaml", "a.yaml", "b.yaml", "c.yaml"}, ""},
		{"empty directory - fail", []string{empty}, nil, "empty: no *.yaml cassette in directory"},
		{"missing path - fail", []string{filepath.Join(dir, "none.yaml")}, nil, "none.yaml: no such file"},
		{"not a cassette - fail", []string{filepath.Join(dir, "notes.txt")}, nil, "notes.txt: a cassette file name must end in .yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := LoadAll(tt.paths...)
			checkErr(t, err, tt.wantErr)
			var got []string
			for _, f := range files {
				got = append(got, filepath.Base(f.Path))
				if want := "https://h/api/v1/" + filepath.Base(f.Path); f.Interactions[0].URL != want {
					t.Errorf("%s: got URL %s, want %s", f.Path, f.Interactions[0].URL, want)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("loaded: got %v, want %v", got, tt.want)
			}
		})
	}
}

// dirNames lists a directory's entry names.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestSave_Atomic(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, dir string) // prepares dir before Save
		target    string                         // relative to dir
		wantErr   string
		wantNames []string // entries of dir afterwards
	}{
		{"new file - pass", nil, "c.yaml", "", []string{"c.yaml"}},
		{"overwrite - pass", func(t *testing.T, dir string) { saveNamed(t, filepath.Join(dir, "c.yaml")) }, "c.yaml", "", []string{"c.yaml"}},
		{"new directory - pass", nil, "sub/c.yaml", "", []string{"sub"}},
		{"target is a directory - fail", func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "c.yaml", "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "c.yaml", "save cassette", []string{"c.yaml"}},
		{"not .yaml - fail", nil, "c.yml", "a cassette file name must end in .yaml", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			f := New()
			f.Add(Interaction{URL: listURL, Code: 200, Body: []byte("new\n")})
			err := f.Save(filepath.Join(dir, tt.target))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Save: got error %v, want none", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Save: got error %v, want one containing %q", err, tt.wantErr)
			}
			if got := dirNames(t, dir); !slices.Equal(got, tt.wantNames) {
				t.Errorf("directory after Save: got %v, want %v (no temporary files)", got, tt.wantNames)
			}
			if tt.wantErr != "" {
				return
			}
			back, err := Load(filepath.Join(dir, tt.target))
			if err != nil {
				t.Fatalf("Load: got error %v, want none", err)
			}
			if got := string(back.Interactions[0].Body); got != "new\n" {
				t.Errorf("body after Save: got %q, want %q", got, "new\n")
			}
		})
	}
}
