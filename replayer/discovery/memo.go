package discovery

import (
	"bytes"
	"hash/maphash"
	"maps"
	"slices"
	"sync"

	"github.com/lwreplay/lwreplay/history"
)

// Every run of a fuzzer replays the same history, and each run's replay
// makes its Doc. New hands out one Doc per distinct input instead. So its
// documents and its aggregated answers are built once per process, not
// once per run. (The aggregated answers are what client-go's and
// controller-runtime's discovery ask for first.) A Doc is immutable but
// for what it builds once, so sharing it changes no answer.

// maxMemo is the most Docs the memo keeps; once full it starts afresh
// (a process replays few distinct histories).
const maxMemo = 64

var (
	memoMu   sync.Mutex
	memoSeed = maphash.MakeSeed()
	memo     = map[uint64][]*Doc{}
	memoLen  int
)

// memoized returns the Doc of these inputs made before, or else makes it
// with build and keeps it.
func memoized(recorded map[string][]byte, resources []history.Resource, gitVersion string, writes bool, build func() *Doc) *Doc {
	key := memoKey(recorded, resources, gitVersion)
	memoMu.Lock()
	defer memoMu.Unlock()
	for _, d := range memo[key] {
		if d.gitVersion == gitVersion && d.served.writes == writes && slices.Equal(d.resources, resources) && maps.EqualFunc(d.recorded, recorded, bytes.Equal) {
			return d
		}
	}
	if memoLen >= maxMemo {
		memo, memoLen = map[uint64][]*Doc{}, 0
	}
	d := build()
	memo[key] = append(memo[key], d)
	memoLen++
	return d
}

// memoKey hashes a Doc's inputs: the recorded answers by path (sorted),
// the served resources in order, and the gitVersion.
func memoKey(recorded map[string][]byte, resources []history.Resource, gitVersion string) uint64 {
	var h maphash.Hash
	h.SetSeed(memoSeed)
	for _, p := range slices.Sorted(maps.Keys(recorded)) {
		h.WriteString(p)
		h.WriteByte(0)
		h.Write(recorded[p])
		h.WriteByte(0)
	}
	for _, r := range resources {
		for _, s := range []string{r.Group, r.Version, r.Resource, r.Kind} {
			h.WriteString(s)
			h.WriteByte(0)
		}
		if r.Namespaced {
			h.WriteByte(1)
		}
		h.WriteByte(0)
	}
	h.WriteString(gitVersion)
	return h.Sum64()
}
