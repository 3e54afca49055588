package replayer

import (
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

// TestStoreChanges checks that the store's per-resource state follows a
// change of the served history by resource, with no re-keying. A write
// moves its resource's head past the events it placed before it. A
// recreate moves it past its two events. Other resources keep theirs.
func TestStoreChanges(t *testing.T) {
	cms := history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	nss := history.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}
	shiftAfter := func(res history.Resource, p, n int) func(history.Resource, int) int {
		return func(r history.Resource, pos int) int {
			if r == res.ID() && pos > p {
				return pos + n
			}
			return pos
		}
	}
	tests := []struct {
		name       string
		head       int // the configmaps' head before the change
		change     func(st *store, next *history.History)
		wantHead   int // the configmaps' head after
		wantNSHead int // the namespaces' head after (2 before)
		wantTold   bool
	}{
		{name: "store - write before the head - pass", head: 3,
			change:   func(st *store, next *history.History) { st.write(next, shiftAfter(cms, 1, 2), nil, nil) },
			wantHead: 5, wantNSHead: 2, wantTold: true},
		{name: "store - write after the head - pass", head: 1,
			change:   func(st *store, next *history.History) { st.write(next, shiftAfter(cms, 1, 2), nil, nil) },
			wantHead: 1, wantNSHead: 2, wantTold: true},
		{name: "store - made log - pass", head: 3,
			change:   func(st *store, next *history.History) { st.addLog(next, nil) },
			wantHead: 3, wantNSHead: 2, wantTold: true},
		{name: "store - recreate below the head - pass", head: 3,
			change: func(st *store, next *history.History) {
				st.recreated(next, cms, 1, func(rv string) string { return rv })
			},
			wantHead: 5, wantNSHead: 2},
		{name: "store - recreate above the head - pass", head: 0,
			change: func(st *store, next *history.History) {
				st.recreated(next, cms, 2, func(rv string) string { return rv })
			},
			wantHead: 4, wantNSHead: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, next := listHistory(t), listHistory(t)
			st := newStore(h, time.Now(), Pace{Mode: PaceMax}, "")
			l, _ := h.Log(cms)
			nl, _ := h.Log(nss)
			st.advance(l, tt.head)
			st.advance(nl, 2)
			_, changed := st.follow(h.Logs[0])
			tt.change(st, next)
			if got := st.history(); got != next {
				t.Errorf("served history: got %p, want the next one %p", got, next)
			}
			l2, _ := next.Log(cms)
			if got := st.head(l2); got != tt.wantHead {
				t.Errorf("configmaps head: got %d, want %d", got, tt.wantHead)
			}
			nl2, _ := next.Log(nss)
			if got := st.head(nl2); got != tt.wantNSHead {
				t.Errorf("namespaces head: got %d, want %d", got, tt.wantNSHead)
			}
			told := false
			select {
			case <-changed:
				told = true
			default:
			}
			if told != tt.wantTold {
				t.Errorf("open watches told: got %v, want %v", told, tt.wantTold)
			}
		})
	}
}

// TestStoreFollowed checks that a watch follows its resource's log only
// once a write changed the served history.
func TestStoreFollowed(t *testing.T) {
	cms := history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	tests := []struct {
		name   string
		change func(st *store, next *history.History)
		follow bool
	}{
		{name: "store follow - no change - pass", change: func(*store, *history.History) {}},
		{name: "store follow - recreate - pass", change: func(st *store, next *history.History) {
			st.recreated(next, cms, 0, func(rv string) string { return rv })
		}},
		{name: "store follow - write - pass", change: func(st *store, next *history.History) { st.write(next, nil, nil, nil) }, follow: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, next := listHistory(t), listHistory(t)
			st := newStore(h, time.Now(), Pace{Mode: PaceMax}, "")
			l, _ := h.Log(cms)
			tt.change(st, next)
			want := l
			if tt.follow {
				want, _ = next.Log(cms)
			}
			if got, _ := st.follow(l); got != want {
				t.Errorf("followed log: got %p, want %p", got, want)
			}
		})
	}
}
