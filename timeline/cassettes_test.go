package timeline_test

import (
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/timeline"
)

func TestFromCassettes(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		wantEnds  int
		wantErrAt bool
	}{
		{name: "cassettes - expired cassette - one end per watch, errors when answered - pass", file: "../cassettes/real-configmaps-expired.yaml", wantEnds: 1, wantErrAt: true},
		{name: "cassettes - WatchList cassette - one end per watch - pass", file: "../cassettes/real-configmaps-pods-watchlist.yaml", wantEnds: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := cassette.LoadAll(tc.file)
			if err != nil {
				t.Fatalf("LoadAll: got error %v, want none", err)
			}
			h, err := history.Build(files...)
			if err != nil {
				t.Fatalf("Build: got error %v, want none", err)
			}
			var start time.Time
			for _, i := range files[0].Interactions {
				if !i.Started.IsZero() && (start.IsZero() || i.Started.Before(start)) {
					start = i.Started
				}
			}
			got := timeline.FromCassettes(files, h, "")
			ends, errs := 0, 0
			for _, l := range got.Lanes {
				for _, r := range l.Rows {
					for _, m := range r.Marks {
						switch m.Kind {
						case timeline.KindEnd:
							ends++
							i := files[0].Interactions[r.Interaction]
							if want := i.Started.Sub(start) + i.Duration; m.At != want {
								t.Errorf("%s: end at %v, want %v", r.Name, m.At, want)
							}
						case timeline.KindError:
							errs++
							i := files[0].Interactions[r.Interaction]
							if want := i.Started.Sub(start) + i.Duration; m.At != want {
								t.Errorf("%s: error at %v, want %v (when it was answered)", r.Name, m.At, want)
							}
						}
					}
				}
			}
			if ends != tc.wantEnds {
				t.Errorf("stream ends: got %d, want %d", ends, tc.wantEnds)
			}
			if tc.wantErrAt && errs == 0 {
				t.Errorf("errors: got none, want the cassette's")
			}
		})
	}
}

func TestFromCassettesPages(t *testing.T) {
	files, err := cassette.LoadAll("../cassettes/real-configmaps-pods-list-pages.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatal(err)
	}
	got := timeline.FromCassettes(files, h, "")
	for i, l := range h.Logs {
		pages := 0
		for _, r := range got.Lanes[i].Rows {
			for _, m := range r.Marks {
				if m.Kind == timeline.KindPage {
					pages++
				}
			}
		}
		if pages != l.Lists || pages < 2 {
			t.Errorf("cassettes - paged LIST of %s - one mark per page - fail: got %d page marks, want the %d pages recorded", l.Resource, pages, l.Lists)
		}
	}
}
