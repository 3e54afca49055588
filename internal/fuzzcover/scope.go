// Package fuzzcover is the go command's -toolexec wrapper behind
// cmd/lwcover. Under -fuzz, the go command compiles every package of a
// test binary with coverage counters (-d=libfuzzer). The Kubernetes
// client's JSON decoding and lwreplay's replay are among them, and no
// flag leaves one out. fuzzcover takes the counters out of the packages
// its Scope leaves out: by default, every package outside the module go
// test runs in.
package fuzzcover

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Scope says which packages keep go test -fuzz's coverage counters.
type Scope struct {
	spec     string           // as given, for String and the tool ID
	all      bool             // every package go test instruments
	module   bool             // the packages of the main module
	patterns []*regexp.Regexp // import-path patterns
}

// ScopeModule is the default scope's word: the packages whose directory is
// in the main module's, the one holding the nearest go.mod above the
// directory go test runs in (its vendor directory excepted).
const ScopeModule = "module"

// ScopeAll is the word for every package go test -fuzz instruments.
const ScopeAll = "all"

// DefaultScope is the scope lwcover takes when given none.
const DefaultScope = ScopeModule

// ParseScope reads a comma-separated scope: "module", "all", or import-path
// patterns as the go command reads them ("..." matches any string, so
// "sigs.k8s.io/controller-runtime/..." is that module's packages).
func ParseScope(spec string) (Scope, error) {
	s := Scope{spec: spec}
	if strings.TrimSpace(spec) == "" {
		return Scope{}, fmt.Errorf("scope: empty (want %q, %q or import-path patterns, comma-separated)", ScopeModule, ScopeAll)
	}
	for i, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == ScopeModule:
			s.module = true
		case item == ScopeAll:
			s.all = true
		case item == "" || strings.ContainsAny(item, " \t\\") || strings.HasPrefix(item, "-") || strings.HasPrefix(item, "."):
			return Scope{}, fmt.Errorf("scope: item %d %q: not %q, %q nor an import-path pattern", i+1, item, ScopeModule, ScopeAll)
		default:
			s.patterns = append(s.patterns, patternRegexp(item))
		}
	}
	return s, nil
}

// String returns the scope as given.
func (s Scope) String() string { return s.spec }

// patternRegexp returns the go command's reading of an import-path
// pattern: "..." matches any string, and "x/..." matches x too.
func patternRegexp(p string) *regexp.Regexp {
	re := regexp.QuoteMeta(p)
	re = strings.ReplaceAll(re, `\.\.\.`, `.*`)
	if strings.HasSuffix(re, `/.*`) {
		re = strings.TrimSuffix(re, `/.*`) + `(/.*)?`
	}
	return regexp.MustCompile(`^` + re + `$`)
}

// Package is what the compiler's arguments say of the package it builds.
type Package struct {
	// ImportPath is the package's import path ("main" for go test's own
	// main package).
	ImportPath string
	// Dir is the directory of its first Go file; "" when it has none.
	Dir string
}

// Covers reports whether the scope keeps p's counters. moduleDir is the
// main module's directory ("" when there is none: then "module" covers
// nothing).
func (s Scope) Covers(p Package, moduleDir string) bool {
	if s.all {
		return true
	}
	if s.module && moduleDir != "" && p.Dir != "" && within(p.Dir, moduleDir) &&
		!within(p.Dir, filepath.Join(moduleDir, "vendor")) {
		return true
	}
	for _, re := range s.patterns {
		if re.MatchString(p.ImportPath) {
			return true
		}
	}
	return false
}

// within reports whether dir is root or below it.
func within(dir, root string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// ID is a short hash of the scope and the module directory it is read
// against. lwcover adds it to the compiler's version line. The go command
// makes the compiler's part of every build cache key from that line. So a
// package built under one scope is never taken from the cache for another.
func (s Scope) ID(moduleDir string) string {
	h := sha256.Sum256([]byte(s.spec + "\x00" + moduleDir))
	return hex.EncodeToString(h[:6])
}
