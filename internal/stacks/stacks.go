// Package stacks reads the stacks of the process's goroutines.
package stacks

import (
	"runtime"
	"strings"
)

// All returns the stack of every goroutine of the process, each with its
// header ("goroutine 7 [select]:"), as runtime.Stack writes them.
func All() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return strings.Split(string(buf), "\n\n")
}

// Count returns how many goroutines have frame in their stack.
func Count(frame string) int {
	n := 0
	for _, g := range All() {
		if strings.Contains(g, frame) {
			n++
		}
	}
	return n
}
