package cassette

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRotationOf(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		wantFirst string
		wantN     int
	}{
		{"rotation - part 1 - pass", "d/x_001.yaml", "d/x.yaml", 1},
		{"rotation - part 999 - pass", "d/x_999.yaml", "d/x.yaml", 999},
		{"rotation - part 1000 - pass", "d/x_z1000.yaml", "d/x.yaml", 1000},
		{"rotation - underscore in the name - pass", "d/my_run_002.yaml", "d/my_run.yaml", 2},
		{"rotation - first part - not a later one - pass", "d/x.yaml", "d/x.yaml", 0},
		{"rotation - two digits - not the recorder's name - pass", "d/x_01.yaml", "d/x_01.yaml", 0},
		{"rotation - part 0 - not the recorder's name - pass", "d/x_000.yaml", "d/x_000.yaml", 0},
		{"rotation - 1000 without z - not the recorder's name - pass", "d/x_1000.yaml", "d/x_1000.yaml", 0},
		{"rotation - a word - not the recorder's name - pass", "d/x_old.yaml", "d/x_old.yaml", 0},
		{"rotation - no stem - not the recorder's name - pass", "d/_001.yaml", "d/_001.yaml", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, n := rotationOf(tt.path)
			if first != tt.wantFirst || n != tt.wantN {
				t.Errorf("rotationOf(%q): got %q, %d, want %q, %d", tt.path, first, n, tt.wantFirst, tt.wantN)
			}
			if n > 0 && RotatedName(first, n) != tt.path {
				t.Errorf("RotatedName(%q, %d): got %q, want %q", first, n, RotatedName(first, n), tt.path)
			}
		})
	}
}

// part returns a file at path whose one interaction started at sec
// seconds into the recording and took a second.
func part(path string, sec int) *File {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return &File{Path: path, Interactions: []Interaction{{Method: "GET", URL: "https://h/api/v1/configmaps", Code: 200,
		Started: t0.Add(time.Duration(sec) * time.Second), Duration: time.Second}}}
}

func TestGroup(t *testing.T) {
	untimed := &File{Path: "d/u_001.yaml", Interactions: []Interaction{{URL: "https://h/api", Code: 200}}}
	tests := []struct {
		name  string
		files []*File
		want  string // recordings, "|" between, each Describe()
	}{
		{"group - unrelated files - one recording each - pass",
			[]*File{part("d/a.yaml", 0), part("d/b.yaml", 0)}, "d/a.yaml|d/b.yaml"},
		{"group - rotations in order - one recording - pass",
			[]*File{part("d/x.yaml", 0), part("d/x_001.yaml", 1), part("d/x_002.yaml", 2)}, "d/x.yaml d/x_001.yaml d/x_002.yaml"},
		{"group - rotations given in reverse - parts in order - pass",
			[]*File{part("d/x_002.yaml", 2), part("d/x_001.yaml", 1), part("d/x.yaml", 0)}, "d/x.yaml d/x_001.yaml d/x_002.yaml"},
		{"group - rotations beside an unrelated file - pass",
			[]*File{part("d/a.yaml", 5), part("d/x.yaml", 0), part("d/x_001.yaml", 1)}, "d/a.yaml|d/x.yaml d/x_001.yaml"},
		{"group - a part within the clock slack - joins - pass",
			[]*File{part("d/x.yaml", 1), {Path: "d/x_001.yaml", Interactions: []Interaction{{URL: "https://h/api", Code: 200,
				Started: part("", 1).Interactions[0].Started.Add(100 * time.Millisecond), Duration: 500 * time.Millisecond}}}},
			"d/x.yaml d/x_001.yaml"},
		{"group - a part that ends before the previous one - its own - pass",
			[]*File{part("d/x.yaml", 5), part("d/x_001.yaml", 1)},
			"d/x.yaml|d/x_001.yaml (named as the part after d/x.yaml, but it does not continue it: an answer of it ended at 2026-01-02T03:04:07Z, before the last answer of d/x.yaml ended (2026-01-02T03:04:11Z))"},
		{"group - a part whose predecessor is missing - its own - pass",
			[]*File{part("d/x.yaml", 0), part("d/x_002.yaml", 2)},
			"d/x.yaml|d/x_002.yaml (named as the part after d/x_001.yaml, which is not among the files)"},
		{"group - parts in two directories - not one - pass",
			[]*File{part("d/x.yaml", 0), part("e/x_001.yaml", 1)},
			"d/x.yaml|e/x_001.yaml (named as the part after e/x.yaml, which is not among the files)"},
		{"group - an untimed part - its own - pass",
			[]*File{part("d/u.yaml", 0), untimed},
			"d/u.yaml|d/u_001.yaml (named as the part after d/u.yaml, but it has no recorded timing to show that it continues d/u.yaml)"},
		{"group - an empty last part - joins - pass",
			[]*File{part("d/x.yaml", 0), {Path: "d/x_001.yaml"}}, "d/x.yaml d/x_001.yaml"},
		{"group - a file given twice - once - pass",
			[]*File{part("d/a.yaml", 0), part("d/./a.yaml", 0)}, "d/a.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range Group(tt.files) {
				got = append(got, r.Describe())
			}
			if strings.Join(got, "|") != tt.want {
				t.Errorf("Group: got %q, want %q", strings.Join(got, "|"), tt.want)
			}
		})
	}
}

func TestOneRecording(t *testing.T) {
	files, err := OneRecording(part("d/x_001.yaml", 1), part("d/x.yaml", 0))
	if err != nil || len(files) != 2 || files[0].Path != "d/x.yaml" {
		t.Errorf("one recording - rotations - pass: got %v, %v, want d/x.yaml then d/x_001.yaml", files, err)
	}
	_, err = OneRecording(part("d/a.yaml", 0), part("d/b.yaml", 0))
	const want = "not one recording: the files hold 2 recordings: (1) d/a.yaml; (2) d/b.yaml; files load as one recording only"
	if !errors.Is(err, ErrNotOneRecording) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("one recording - unrelated files - fail: got %v, want %q", err, want)
	}
}

func TestLoadRecordings(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []*File{part("a.yaml", 9), part("x.yaml", 0), part("x_001.yaml", 1)} {
		if err := f.Save(filepath.Join(dir, f.Path)); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := LoadRecordings([]string{dir})
	if err != nil {
		t.Fatalf("LoadRecordings: got error %v, want none", err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, strings.ReplaceAll(r.Name(), dir+string(os.PathSeparator), ""))
	}
	if want := "a.yaml|x.yaml x_001.yaml"; strings.Join(got, "|") != want {
		t.Errorf("directory - two recordings - pass: got %q, want %q", strings.Join(got, "|"), want)
	}
}
