package cassette

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrNotOneRecording says files given as one recording are not: they are
// not the parts a recorder rotated one recording into.
var ErrNotOneRecording = errors.New("not one recording")

// ClockSlack is how far a part's answers may seem to end before the
// previous part's last answer, and still continue it. The wall clock of
// the recording machine may step (NTP) while a recording runs.
const ClockSlack = time.Second

// Recording is one recording: a cassette file, or the parts a recorder
// rotated one recording into (x.yaml, x_001.yaml, x_002.yaml, ...), in
// recorded order.
//
// The rule: files are parts of one recording when, and only when, three
// things hold. They are named as one recording's rotations (RotatedName)
// in one directory. They are numbered on from the first file of the group
// without a gap. Each part continues the one before it: every answer of
// the later part ends no earlier than the earlier part's last answer
// ended, give or take ClockSlack. (A recorder writes a part once every
// answer in it has ended, and starts the next with what is still open.) A
// part with no interactions continues any. Any other file is a recording
// of its own.
type Recording struct {
	// Files are the recording's parts, in order.
	Files []*File
	// Note says why the recording's first file, named as a later part of
	// another recording, is not one ("" when it is not named so).
	Note string
}

// Name returns the paths of the recording's files, separated by spaces:
// the arguments that load it again.
func (r Recording) Name() string { return strings.Join(r.Paths(), " ") }

// Paths returns the paths of the recording's files, in order.
func (r Recording) Paths() []string {
	out := make([]string, len(r.Files))
	for i, f := range r.Files {
		out[i] = f.Path
	}
	return out
}

// Describe names the recording for a message: its name, and its note.
func (r Recording) Describe() string {
	if r.Note == "" {
		return r.Name()
	}
	return r.Name() + " (" + r.Note + ")"
}

// RotatedName returns the name of part n (n ≥ 1) of the recording whose
// first part is path. "x.yaml" gives "x_001.yaml" ... "x_999.yaml", then
// "x_z1000.yaml". Each more digit adds a "z", so that names sort in order
// ('_' sorts after '.', 'z' after digits).
func RotatedName(path string, n int) string {
	digits := fmt.Sprintf("%03d", n)
	return strings.TrimSuffix(path, ".yaml") + "_" + strings.Repeat("z", len(digits)-3) + digits + ".yaml"
}

// rotationOf returns the first part of the recording that path is
// named as part n of, and n. n is 0 for a name that is no rotation's.
func rotationOf(path string) (first string, n int) {
	stem, ok := strings.CutSuffix(path, ".yaml")
	k := strings.LastIndexByte(stem, '_')
	if !ok || k < 0 {
		return path, 0
	}
	digits := strings.TrimLeft(stem[k+1:], "z")
	n, err := strconv.Atoi(digits)
	first = stem[:k] + ".yaml"
	if err != nil || n < 1 || digits[0] < '0' || digits[0] > '9' || RotatedName(first, n) != path || filepath.Base(first) == ".yaml" {
		return path, 0
	}
	return first, n
}

// predecessor returns the name of the part before path, if path is named
// as a later part.
func predecessor(path string) (string, bool) {
	first, n := rotationOf(path)
	switch n {
	case 0:
		return "", false
	case 1:
		return first, true
	}
	return RotatedName(first, n-1), true
}

// Group splits files into recordings by the rule Recording states, in the
// order their first files are given; a file given twice counts once.
func Group(files []*File) []Recording {
	byPath := make(map[string]*File, len(files))
	for _, f := range files {
		if _, dup := byPath[filepath.Clean(f.Path)]; !dup {
			byPath[filepath.Clean(f.Path)] = f
		}
	}
	head := map[*File]*File{} // each file's recording's first file
	notes := map[*File]string{}
	var headOf func(f *File) *File
	headOf = func(f *File) *File {
		if h, ok := head[f]; ok {
			return h
		}
		head[f] = f
		prevName, ok := predecessor(filepath.Clean(f.Path))
		if !ok {
			return f
		}
		prev, given := byPath[prevName]
		if !given {
			notes[f] = fmt.Sprintf("named as the part after %s, which is not among the files", prevName)
			return f
		}
		if why := continues(prev, f); why != "" {
			notes[f] = fmt.Sprintf("named as the part after %s, but %s", prev.Path, why)
			return f
		}
		head[f] = headOf(prev)
		return head[f]
	}
	var out []Recording
	index := map[*File]int{}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[filepath.Clean(f.Path)] {
			continue
		}
		seen[filepath.Clean(f.Path)] = true
		f = byPath[filepath.Clean(f.Path)]
		h := headOf(f)
		i, ok := index[h]
		if !ok {
			i = len(out)
			index[h] = i
			out = append(out, Recording{Note: notes[h]})
		}
		out[i].Files = append(out[i].Files, f)
	}
	for _, r := range out {
		sort.SliceStable(r.Files, func(i, j int) bool {
			_, a := rotationOf(filepath.Clean(r.Files[i].Path))
			_, b := rotationOf(filepath.Clean(r.Files[j].Path))
			return a < b
		})
	}
	return out
}

// continues says why next does not continue prev ("" when it does). A
// part with no interactions continues any, and is continued by any. (A
// recorder's last part may be empty when it stopped just after a
// rotation.)
func continues(prev, next *File) string {
	if len(prev.Interactions) == 0 || len(next.Interactions) == 0 {
		return ""
	}
	_, prevEnd, ok := span(prev)
	if !ok {
		return "it has no recorded timing to show that " + next.Path + " continues it"
	}
	nextFirst, _, ok := span(next)
	if !ok {
		return "it has no recorded timing to show that it continues " + prev.Path
	}
	if nextFirst.Add(ClockSlack).Before(prevEnd) {
		return fmt.Sprintf("it does not continue it: an answer of it ended at %s, before the last answer of %s ended (%s)",
			nextFirst.UTC().Format(time.RFC3339Nano), prev.Path, prevEnd.UTC().Format(time.RFC3339Nano))
	}
	return ""
}

// span returns when f's first answer ended and when its last one did;
// ok is false when no interaction has a recorded start.
func span(f *File) (first, last time.Time, ok bool) {
	for _, i := range f.Interactions {
		if i.Started.IsZero() {
			continue
		}
		end := i.Started.Add(i.Duration)
		if !ok || end.Before(first) {
			first = end
		}
		if !ok || end.After(last) {
			last = end
		}
		ok = true
	}
	return first, last, ok
}

// OneRecording returns files as the parts of one recording, in order, when
// Group finds them one. Else it returns an error wrapping
// ErrNotOneRecording. The error names each recording the files hold, and
// why a file named as a part does not join its recording.
func OneRecording(files ...*File) ([]*File, error) {
	recs := Group(files)
	switch len(recs) {
	case 0:
		return nil, nil
	case 1:
		return recs[0].Files, nil
	}
	return nil, fmt.Errorf("%w: the files hold %d recordings: %s; %s", ErrNotOneRecording, len(recs), DescribeAll(recs), RuleText)
}

// RuleText states the rule for errors and usage messages.
const RuleText = "files load as one recording only when they are the parts a recorder rotated it into " +
	"(x.yaml, x_001.yaml, x_002.yaml, ...), each continuing the one before"

// DescribeAll names recordings for a message: "(1) a.yaml; (2) b.yaml
// b_001.yaml; ...".
func DescribeAll(recs []Recording) string {
	parts := make([]string, len(recs))
	for i, r := range recs {
		parts[i] = fmt.Sprintf("(%d) %s", i+1, r.Describe())
	}
	return strings.Join(parts, "; ")
}

// LoadRecordings reads cassette files and directories of them (their
// *.yaml files in name order). It groups them into recordings (Group);
// each recording is one history to replay. Errors name the file.
func LoadRecordings(paths []string, opts ...LoadOption) ([]Recording, error) {
	o := loadDefaults()
	for _, fn := range opts {
		fn(&o)
	}
	files, err := loadAll(paths, o)
	if err != nil {
		return nil, err
	}
	return Group(files), nil
}
