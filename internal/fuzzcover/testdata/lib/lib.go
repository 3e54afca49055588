// Package lib is a dependency outside the main module of fuzzcover's build
// test: the default scope takes its coverage counters out.
package lib

// Classify names n with a branch per case, each a counter when
// instrumented. It is not inlined: an inlined body is compiled, counters
// and all, in its caller's package.
//
//go:noinline
func Classify(n int) string {
	switch {
	case n < 0:
		return "negative"
	case n == 0:
		return "zero"
	case n == 1:
		return "one"
	case n == 2:
		return "two"
	case n%2 == 0:
		return "even"
	}
	return "odd"
}
