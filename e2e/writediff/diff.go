package writediff

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Diff compares two transcripts and returns one line per difference. A line
// names the sequence and step (or "setup", or the sequence's watch), and
// says "got X, want Y". It returns nil when they are equal.
func Diff(want, got Transcript) []string {
	var out []string
	out = append(out, diffFields("setup", flatten(want.Setup), flatten(got.Setup))...)
	gotSeqs := map[string]SequenceTranscript{}
	for _, s := range got.Sequences {
		gotSeqs[s.Name] = s
	}
	wantNames := map[string]bool{}
	for _, w := range want.Sequences {
		wantNames[w.Name] = true
		g, ok := gotSeqs[w.Name]
		if !ok {
			out = append(out, fmt.Sprintf("sequence %s: got none, want %d steps", w.Name, len(w.Steps)))
			continue
		}
		out = append(out, diffSequence(w, g)...)
	}
	for _, g := range got.Sequences {
		if !wantNames[g.Name] {
			out = append(out, fmt.Sprintf("sequence %s: got %d steps, want none", g.Name, len(g.Steps)))
		}
	}
	return out
}

// diffSequence compares two transcripts of one sequence, step by step in
// order, then the watches.
func diffSequence(want, got SequenceTranscript) []string {
	var out []string
	for i := 0; i < max(len(want.Steps), len(got.Steps)); i++ {
		switch {
		case i >= len(got.Steps):
			out = append(out, fmt.Sprintf("%s / %s: got no step, want one", want.Name, want.Steps[i].Step))
		case i >= len(want.Steps):
			out = append(out, fmt.Sprintf("%s / %s: got a step, want none", want.Name, got.Steps[i].Step))
		case want.Steps[i].Step != got.Steps[i].Step:
			out = append(out, fmt.Sprintf("%s / step %d: got step %q, want %q", want.Name, i, got.Steps[i].Step, want.Steps[i].Step))
		default:
			where := want.Name + " / " + want.Steps[i].Step
			out = append(out, diffFields(where, flatten(want.Steps[i]), flatten(got.Steps[i]))...)
		}
	}
	w := SequenceTranscript{Events: want.Events, EventRVs: want.EventRVs, Watch: want.Watch}
	g := SequenceTranscript{Events: got.Events, EventRVs: got.EventRVs, Watch: got.Watch}
	return append(out, diffFields(want.Name+" / watch", flatten(w), flatten(g))...)
}

// flatten turns a value into its JSON leaves by dotted path ("object.rv",
// "events.2"); none for nil.
func flatten(v any) map[string]string {
	out := map[string]string{}
	b, err := json.Marshal(v)
	if err != nil {
		out[""] = "unencodable: " + err.Error()
		return out
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		out[""] = "undecodable: " + err.Error()
		return out
	}
	flattenInto(out, "", x)
	return out
}

func flattenInto(out map[string]string, path string, x any) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch v := x.(type) {
	case nil:
	case map[string]any:
		for k, e := range v {
			flattenInto(out, join(k), e)
		}
	case []any:
		for i, e := range v {
			flattenInto(out, join(fmt.Sprint(i)), e)
		}
	default:
		b, _ := json.Marshal(v)
		out[path] = string(b)
	}
}

// diffFields compares flattened values, one line per path that differs.
func diffFields(where string, want, got map[string]string) []string {
	paths := maps.Clone(want)
	maps.Copy(paths, got)
	var out []string
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		w, g := valueAt(want, p), valueAt(got, p)
		if w != g {
			out = append(out, fmt.Sprintf("%s: %s: got %s, want %s", where, p, g, w))
		}
	}
	return out
}

// valueAt is m's value at path p, or "nothing".
func valueAt(m map[string]string, p string) string {
	if v, ok := m[p]; ok {
		return v
	}
	return "nothing"
}
