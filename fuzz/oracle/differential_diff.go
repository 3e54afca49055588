package oracle

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// maxDiffLines caps the differences DiffFinalState lists one by one.
const maxDiffLines = 8

// DiffError is DiffFinalState's error, wrapping ErrDiffersFromReference.
// Its text lists the differences. What says what differed, for a
// finding's Signature.
type DiffError struct {
	// What lists what differed, sorted, each once. A field is "resource
	// path" (list indices as [*]). An object is "resource (missing)" or
	// "resource (extra)". An object's counts are "resource (ADDED)" or
	// "resource (DELETED)".
	What []string
	text string
}

// Error returns the differences, as DiffFinalState says.
func (e *DiffError) Error() string { return e.text }

// Unwrap returns ErrDiffersFromReference.
func (e *DiffError) Unwrap() error { return ErrDiffersFromReference }

// Details returns What: the Signature details of a same-outcome finding.
func (e *DiffError) Details() []string { return e.What }

// DiffFinalState compares got with the reference ref under the masks m.
// It also applies CollectedMasks (an object the garbage collector's in
// either). It returns nil when they are equal. Otherwise it returns a
// *DiffError, wrapping ErrDiffersFromReference. The error lists a few
// differences, sorted by resource and key, then "… N more":
//
//   - the objects got holds more or lacks;
//   - the fields that differ ("path: ref value → got value", shortened);
//   - the objects at the end of either whose counts of ADDED or DELETED
//     events differ (one deleted and created again).
//
// The counts of an object neither end state holds are not compared. A
// level-based controller may act on an intermediate state a fault let it
// see, as long as it ends where the reference does. Say it listed a parent
// before the parent's deletion reached it. It may then create a child and
// delete it again. Two timestamps (IsTimestamp) are equal wherever they
// are (TimestampWhy). A resource masked whole (Mask.Path "") is not
// compared. An object whose owner was created again may match the
// reference's under another name (OwnedNameWhy).
func DiffFinalState(ref, got FinalState, m Masks) error {
	diffs := outcomeDiffs(ref, got, m)
	if len(diffs) == 0 {
		return nil
	}
	lines, what := make([]string, len(diffs)), make([]string, len(diffs))
	for i, d := range diffs {
		lines[i], what[i] = d.line, d.what
	}
	shown := lines
	if len(lines) > maxDiffLines {
		shown = append(lines[:maxDiffLines:maxDiffLines], fmt.Sprintf("… %d more", len(lines)-maxDiffLines))
	}
	sort.Strings(what)
	return &DiffError{What: compactStrings(what),
		text: fmt.Sprintf("%v: %d differences under the masks:\n  %s", ErrDiffersFromReference, len(lines), strings.Join(shown, "\n  "))}
}

// outcomeDiff is one difference: its line, and what differed (see
// DiffError.What).
type outcomeDiff struct{ line, what string }

// outcomeDiffs lists every difference of got from ref under m and
// CollectedMasks, sorted by resource and key.
func outcomeDiffs(ref, got FinalState, m Masks) []outcomeDiff {
	if c := CollectedMasks(ref, got); len(c.Objects) > 0 {
		m = m.Merge(c)
	}
	got = renameOwned(ref, got, m)
	var lines []outcomeDiff
	for _, res := range unionKeys(ref.Resources, got.Resources) {
		if m.resourceMasked(res) {
			continue
		}
		r, g := ref.Resources[res], got.Resources[res]
		if r == nil {
			r = &ResourceFinalState{}
		}
		if g == nil {
			g = &ResourceFinalState{}
		}
		masked, from := m.objectMasked(res), len(lines)
		add := func(what, format string, args ...any) {
			lines = append(lines, outcomeDiff{line: res + " " + fmt.Sprintf(format, args...), what: res + " " + what})
		}
		for _, k := range unionKeys(r.Objects, g.Objects) {
			if masked[k] {
				continue
			}
			rj, rok := r.Objects[k]
			gj, gok := g.Objects[k]
			switch {
			case !gok:
				add("(missing)", "%s: missing (the reference has it)", k)
			case !rok:
				add("(extra)", "%s: extra (the reference has none)", k)
			case bytes.Equal(rj, gj): // a recorded object untouched: the same bytes
			default:
				for _, d := range jsonDiffs(rj, gj) {
					if !m.fieldMasked(res, d.path) {
						add(generalize(d.path), "%s: %s: %s → %s", k, d.path, d.ref, d.got)
					}
				}
			}
		}
		for _, c := range []struct {
			what     string
			ref, got map[string]int
		}{{"ADDED", r.Added, g.Added}, {"DELETED", r.Deleted, g.Deleted}} {
			for _, k := range unionKeys(c.ref, c.got) {
				if c.ref[k] != c.got[k] && !masked[k] && !r.Disturbed[k] && !g.Disturbed[k] && (atEnd(r, k) || atEnd(g, k)) {
					add("("+c.what+")", "%s: %s by the target's writes %d times, the reference %d", k, c.what, c.got[k], c.ref[k])
				}
			}
		}
		// by key: an object's lines together
		sort.Slice(lines[from:], func(i, j int) bool { return lines[from+i].line < lines[from+j].line })
	}
	return lines
}

// atEnd reports whether the object (or, for "namespace/<generateName>*",
// an object of the generateName) counted under k is in ro's end state.
func atEnd(ro *ResourceFinalState, k string) bool {
	if _, ok := ro.Objects[k]; ok {
		return true
	}
	gen, ok := strings.CutSuffix(k, "*")
	if !ok {
		return false
	}
	for key := range ro.Objects {
		if strings.HasPrefix(key, gen+"#") {
			return true
		}
	}
	return false
}

// unionKeys returns the keys of a and b, sorted, each once.
func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
