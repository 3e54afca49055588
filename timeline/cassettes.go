package timeline

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// FromCassettes is FromHistory for a history built from files, with what
// only the files tell:
//   - where each recorded watch stream ended, and how (cassette.EndEOF,
//     EndError, EndClosed; "unknown" when the recorder did not say), marked
//     at the end of its row;
//   - when each error answer came.
//
// A timeline without timing gets neither.
func FromCassettes(files []*cassette.File, h *history.History, title string) *Timeline {
	t := FromHistory(h, title)
	if t.Ordinal {
		return t
	}
	var start time.Time
	byPath := map[string]*cassette.File{}
	for _, f := range files {
		byPath[f.Path] = f
		for _, i := range f.Interactions {
			if !i.Started.IsZero() && (start.IsZero() || i.Started.Before(start)) {
				start = i.Started
			}
		}
	}
	for li := range t.Lanes {
		for ri := range t.Lanes[li].Rows {
			r := &t.Lanes[li].Rows[ri]
			f, ok := byPath[r.File]
			if !ok || r.Interaction < 0 || r.Interaction >= len(f.Interactions) {
				continue
			}
			i := f.Interactions[r.Interaction]
			if i.Started.IsZero() {
				continue
			}
			if !watchRow(r) {
				r.Marks = append(r.Marks, pages(f, r, start)...)
				slices.SortStableFunc(r.Marks, func(a, b Mark) int { return cmp.Compare(a.At, b.At) })
				// An error answer is placed when it was answered.
				for k := range r.Marks {
					if r.Marks[k].Kind == KindError {
						r.Marks[k].At = i.Started.Sub(start) + i.Duration
					}
				}
				continue
			}
			how := cmp.Or(i.StreamEnd, "unknown")
			r.Marks = append(r.Marks, Mark{Kind: KindEnd, Type: how, At: i.Started.Sub(start) + i.Duration,
				Label: "stream ended (" + how + ") after " + i.Duration.Round(time.Millisecond).String()})
			slices.SortStableFunc(r.Marks, func(a, b Mark) int { return cmp.Compare(a.At, b.At) })
		}
	}
	return t
}

// watchRow reports whether a row shows a watch stream: it holds events
// or bookmarks.
func watchRow(r *Row) bool {
	for _, m := range r.Marks {
		if m.Kind == KindEvent || m.Kind == KindBookmark {
			return true
		}
	}
	return false
}

// pages returns a mark for each page of the LIST chain row r shows but the
// one it has a mark of. Those are the pages before and after it in f that
// ask for the same path, each after the first with a continue token. Each
// is placed when it was answered.
func pages(f *cassette.File, r *Row, start time.Time) []Mark {
	has := false
	for _, m := range r.Marks {
		has = has || m.Kind == KindPage
	}
	if !has {
		return nil
	}
	path, cont, ok := listOf(f.Interactions[r.Interaction])
	if !ok {
		return nil
	}
	chain := []int{r.Interaction}
	for i, c := r.Interaction, cont; c; {
		j := prevList(f, i, path)
		if j < 0 {
			break
		}
		chain = append([]int{j}, chain...)
		_, c, _ = listOf(f.Interactions[j])
		i = j
	}
	for i := r.Interaction; ; {
		j := nextList(f, i, path)
		if j < 0 {
			break
		}
		if _, c, _ := listOf(f.Interactions[j]); !c {
			break
		}
		chain = append(chain, j)
		i = j
	}
	var out []Mark
	for k, i := range chain {
		it := f.Interactions[i]
		if i == r.Interaction || it.Started.IsZero() {
			continue
		}
		out = append(out, Mark{Kind: KindPage, Type: "LIST page", At: it.Started.Sub(start) + it.Duration,
			Label: fmt.Sprintf("page %d of %d (HTTP %d)", k+1, len(chain), it.Code)})
	}
	return out
}

// listOf says whether i is a LIST (a GET that does not watch), of which
// path, and whether it carries a continue token.
func listOf(i cassette.Interaction) (path string, cont, ok bool) {
	u, err := url.Parse(i.URL)
	if err != nil || i.Method != http.MethodGet {
		return "", false, false
	}
	q := u.Query()
	if q.Get("watch") == "true" || q.Get("watch") == "1" {
		return "", false, false
	}
	return u.Path, q.Get("continue") != "", true
}

// prevList and nextList return the LIST of path before or after
// interaction i in f (-1: none).
func prevList(f *cassette.File, i int, path string) int {
	for j := i - 1; j >= 0; j-- {
		if p, _, ok := listOf(f.Interactions[j]); ok && p == path {
			return j
		}
	}
	return -1
}

func nextList(f *cassette.File, i int, path string) int {
	for j := i + 1; j < len(f.Interactions); j++ {
		if p, _, ok := listOf(f.Interactions[j]); ok && p == path {
			return j
		}
	}
	return -1
}
