package main

import (
	"testing"

	"example.com/lib"
)

// FuzzClassify is the fuzz test go test -fuzz -toolexec lwcover builds in
// fuzzcover's build test.
func FuzzClassify(f *testing.F) {
	f.Add(2)
	f.Fuzz(func(t *testing.T, n int) {
		if lib.Classify(n) == "" {
			t.Fatal("no name")
		}
	})
}
