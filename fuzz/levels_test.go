package fuzz

import (
	"fmt"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
)

// TestLevelsAgree runs every fault of the registry at both levels and
// compares what the invariants say and what fired. Each fault is placed at
// a few early decision points, and persistent from two of them. The typed
// level must stand for the wire level.
//
// It runs alone (not in parallel). Under a persistent fault, how many
// requests a backing-off client makes depends on client-go's jitter. That
// is drawn from the process-wide source each run seeds (see seedClientGo).
func TestLevelsAgree(t *testing.T) {
	target, _ := targets.Lookup("reflector-deltafifo")
	h := loadTargetHistory(t)
	d := level.NewCache()
	for _, f := range faults.Registry {
		for _, place := range []string{"at=0", "at=1", "at=3", "from=0", "from=3"} {
			if f.Persists == faults.Once && place[:4] == "from" {
				continue
			}
			for _, watchList := range []bool{true, false} {
				text := fmt.Sprintf("%s:%s", f.Name, place)
				name := fmt.Sprintf("levels agree - %s, WatchList %v - pass", text, watchList)
				t.Run(name, func(t *testing.T) {
					plan, err := faults.ParseText(text)
					if err != nil {
						t.Skipf("plan %q: %v", text, err)
					}
					var got [2]map[string]bool
					var fired [2]string
					for i, lvl := range []Level{Typed, Wire} {
						obs := harness.Observe(t, harness.Spec{History: h, Plan: plan, Target: target, WatchList: watchList, Level: lvl, Cache: d})
						got[i] = map[string]bool{}
						for name, err := range oracle.Judge(obs) {
							got[i][name] = err == nil
						}
						fired[i] = faults.Story(obs.Fired)
					}
					for name := range got[1] {
						if got[0][name] != got[1][name] {
							t.Errorf("%s: got held=%v at the typed level, want held=%v as at the wire level", name, got[0][name], got[1][name])
						}
					}
					// a persistent garble: how many frames the server writes after the first
					// garbled one before it sees the client gone depends on how each level
					// reads. The invariants agree.
					if f.Unrecordable && place[:4] == "from" {
						return
					}
					if fired[0] != fired[1] {
						t.Errorf("fired: got %q at the typed level, want %q as at the wire level", fired[0], fired[1])
					}
				})
			}
		}
	}
}
