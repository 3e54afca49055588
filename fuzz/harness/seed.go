package harness

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand"
)

// seedClientGo seeds the process-wide math/rand source, which client-go
// draws its watch timeouts (and anything else random) from. It also sets
// the one jitter of the run's backoffs (see jitterRand), from what the run
// replays. Under a fault that keeps firing, how many requests a
// backing-off client makes depends on those draws.
//
// Since Go 1.24, rand.Seed is a no-op unless the binary runs with GODEBUG
// randseednop=0. A //go:debug randseednop=0 line in a main package or a
// _test.go file sets it; lwreplay's command and tests do. Without it, the
// backoffs still repeat (their jitter is set), and only client-go's other
// draws vary. Runs in parallel in one process share the source. So only
// runs one at a time repeat exactly, as go test -fuzz runs its inputs, one
// per worker process.
func seedClientGo(s Spec) {
	h := fnv.New64a()
	h.Write([]byte(s.Plan.String()))
	if s.Seed != 0 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], s.Seed)
		h.Write(b[:])
	}
	if s.WatchList {
		h.Write([]byte{1})
	}
	for _, a := range s.Actors { // none: the draws of runs before actors
		h.Write([]byte("actor " + a.Name))
	}
	for _, l := range s.History.Logs {
		h.Write([]byte(l.Resource.Resource + "@" + l.LastRV()))
	}
	sum := h.Sum64()
	rand.Seed(int64(sum)) //nolint:staticcheck // client-go draws from the global source
	setJitter(float64(sum>>11) / (1 << 53))
}
