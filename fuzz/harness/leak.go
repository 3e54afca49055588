package harness

import (
	"bytes"
	"runtime"
	"strings"

	"github.com/lwreplay/lwreplay/internal/stacks"
)

// A run's goroutines live in its synctest bubble. The target may leave
// goroutines behind, still blocked when the bubble's main goroutine
// returns. Then testing/synctest panics with a deadlock error. The run
// recovers it and counts those goroutines from a full stack dump, in which
// each goroutine's header names its bubble.

// deadlockPrefix starts the message of synctest's panic for goroutines
// left blocked in a bubble whose main goroutine has returned.
const deadlockPrefix = "deadlock: main bubble goroutine has exited"

// isLeftGoroutines reports whether a recovered panic is synctest's report
// of goroutines left in a bubble.
func isLeftGoroutines(p any) bool {
	err, ok := p.(error)
	return ok && strings.HasPrefix(err.Error(), deadlockPrefix)
}

// bubbleID returns the id of the calling goroutine's synctest bubble, as
// its stack header gives it ("synctest bubble 7"); "" outside a bubble.
func bubbleID() string {
	buf := make([]byte, 512)
	buf = buf[:runtime.Stack(buf, false)]
	header, _, _ := bytes.Cut(buf, []byte("\n"))
	_, id, ok := bytes.Cut(header, []byte("synctest bubble "))
	if !ok {
		return ""
	}
	end := bytes.IndexAny(id, ",]")
	if end < 0 {
		return ""
	}
	return string(id[:end])
}

// leftIn counts the goroutines of bubble id that are still alive and
// returns the stack of the first, for the report.
func leftIn(id string) (n int, first string) {
	gs := bubbleStacks(id)
	if len(gs) > 0 {
		first = trimStack(gs[0])
	}
	return len(gs), first
}

// bubbleStacks returns the stacks of the goroutines of bubble id, each
// with its header ("goroutine 7 [select, synctest bubble 3]:"); none for
// "".
func bubbleStacks(id string) []string {
	if id == "" {
		return nil
	}
	mark := "synctest bubble " + id + "]"
	mark2 := "synctest bubble " + id + ","
	var out []string
	for _, g := range stacks.All() {
		header, _, _ := strings.Cut(g, "\n")
		if strings.Contains(header, mark) || strings.Contains(header, mark2) {
			out = append(out, g)
		}
	}
	return out
}

// trimStack keeps a goroutine's header and its first frames.
func trimStack(g string) string {
	lines := strings.Split(g, "\n")
	if len(lines) > 9 {
		lines = append(lines[:9], "\t...")
	}
	return strings.Join(lines, "\n")
}
