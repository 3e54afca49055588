// Command app is the main module of fuzzcover's build test: it keeps its
// coverage counters under the default scope.
package main

import (
	"fmt"
	"os"

	"example.com/lib"
)

func main() {
	n := len(os.Args)
	if n > 3 {
		n = 3
	}
	fmt.Println(lib.Classify(n))
}
