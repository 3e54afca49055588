package harness

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/lwreplay/lwreplay/fuzz/observe"
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

// SiteError is an error a target's Run returns with its site: the
// function it is about (as a signature names sites: the function's full
// name), such as where a goroutine that kept the target from stopping
// waits. clean-stop names the site in the run's signature.
type SiteError struct {
	Err  error
	Site string
}

// Error returns e.Err's text.
func (e *SiteError) Error() string { return e.Err.Error() }

// Unwrap returns e.Err.
func (e *SiteError) Unwrap() error { return e.Err }

// noteRunError adds err, an error the target's Run returned, to obs's
// errors, and the site it carries (a SiteError's) to obs.ErrorSites.
func noteRunError(obs *observe.Observation, err error) {
	obs.Errors = append(obs.Errors, fmt.Sprintf("Run returned: %v", err))
	var se *SiteError
	if errors.As(err, &se) && se.Site != "" {
		obs.ErrorSites = append(obs.ErrorSites, se.Site)
	}
}

// RunStacks returns the stacks of the goroutines of the calling
// goroutine's run (its synctest bubble), each with its header; none
// outside a run.
func RunStacks() []string { return bubbleStacks(bubbleID()) }

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
