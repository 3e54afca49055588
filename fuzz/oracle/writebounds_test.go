package oracle

import (
	"errors"
	"strconv"
	"testing"
	"time"
)

// TestWriteBounds shows WriteBounds naming the very write that crosses a
// bound, as a run ending there needs. That is the 31st stored write of one
// object within 10 s, or the 21st 409 Conflict (or AlreadyExists) in a row
// at one version. Both hold when another actor's change comes between, or
// when the writes are slow.
func TestWriteBounds(t *testing.T) {
	stored := func(i int, every time.Duration, rvBefore string) Write {
		return Write{At: time.Duration(i) * every, Verb: "update", Resource: configmaps, Key: "a/x", RVBefore: rvBefore,
			RVAfter: strconv.Itoa(100 + i), Code: 200}
	}
	tests := []struct {
		name      string
		writes    func(i int) Write
		n         int
		wantAt    int // index of the write that crosses; -1: none
		wantError error
	}{
		{name: "write bounds - 40 updates 100 ms apart - the 31st storms - fail", n: 40, wantAt: 30, wantError: ErrWriteStorm,
			writes: func(i int) Write { return stored(i, 100*time.Millisecond, strconv.Itoa(99+i)) }},
		{name: "write bounds - 40 updates 400 ms apart - holds - pass", n: 40, wantAt: -1,
			writes: func(i int) Write { return stored(i, 400*time.Millisecond, strconv.Itoa(99+i)) }},
		{name: "write bounds - 40 updates, another actor's change before each - holds - pass", n: 40, wantAt: -1,
			writes: func(i int) Write { return stored(i, 100*time.Millisecond, "other") }},
		{name: "write bounds - 30 conflicts at one version - the 21st loops - fail", n: 30, wantAt: 20, wantError: ErrConflictLoop,
			writes: func(i int) Write {
				return Write{At: time.Duration(i) * time.Second, Verb: "update", Resource: configmaps, Key: "a/x", RVBefore: "7", RVAfter: "7", Code: 409, Reason: "Conflict"}
			}},
		{name: "write bounds - 30 creates refused AlreadyExists at one version - the 21st loops - fail", n: 30, wantAt: 20, wantError: ErrCreateLoop,
			writes: func(i int) Write {
				return Write{At: time.Duration(i) * time.Second, Verb: "create", Resource: configmaps, Key: "a/x", RVBefore: "7", RVAfter: "7", Code: 409, Reason: "AlreadyExists"}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b WriteBounds
			at := -1
			var got error
			for i := range tc.n {
				if crossed := b.Add(tc.writes(i)); crossed != nil {
					at, got = i, errors.Join(crossed["no-write-storm"], crossed["no-conflict-loop"], crossed["no-create-loop"])
					break
				}
			}
			if at != tc.wantAt || !errors.Is(got, tc.wantError) || (tc.wantError == nil) != (got == nil) {
				t.Errorf("crossed: got write %d (%v), want write %d (%v)", at, got, tc.wantAt, tc.wantError)
			}
		})
	}
}
