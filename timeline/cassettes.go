package timeline

import (
	"cmp"
	"slices"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// FromCassettes is FromHistory for a history built from files, with what
// only the files tell: where each recorded watch stream ended, and how
// (cassette.EndEOF, EndError, EndClosed; "unknown" when the recorder did
// not say), marked at the end of its row, and when each error answer
// came. A timeline without timing gets neither.
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
