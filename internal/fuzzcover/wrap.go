package fuzzcover

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// instrumentFlag is the compiler's debug flag go test -fuzz adds to each
// package it instruments (cmd/go/internal/work/init.go,
// fuzzInstrumentFlags).
const instrumentFlag = "libfuzzer"

// Tool is one run of a build tool as the go command asks it of a
// -toolexec wrapper: the tool's path and its arguments.
type Tool struct {
	Path string
	Args []string
	// ImportPath is $TOOLEXEC_IMPORTPATH, the package being built as the
	// go command names it ("p [p.test]" for a package with its tests).
	ImportPath string
}

// isCompile reports whether t runs the Go compiler.
func (t Tool) isCompile() bool {
	base := strings.TrimSuffix(filepath.Base(t.Path), ".exe")
	return base == "compile"
}

// isVersion reports whether the go command asks t for its version line,
// from which it makes the tool's build ID (cmd/go/internal/work/buildid.go,
// toolID).
func (t Tool) isVersion() bool {
	return len(t.Args) == 1 && t.Args[0] == "-V=full"
}

// Package reads what the compiler's arguments say of the package built:
// its import path (from $TOOLEXEC_IMPORTPATH, else -p) and the directory
// of its first Go file (an absolute path, as the go command gives them).
func (t Tool) Package() Package {
	var p Package
	if f := strings.Fields(t.ImportPath); len(f) > 0 {
		p.ImportPath = f[0]
	}
	for i, a := range t.Args {
		switch {
		case a == "-p" && i+1 < len(t.Args) && p.ImportPath == "":
			p.ImportPath = t.Args[i+1]
		case filepath.IsAbs(a) && strings.HasSuffix(a, ".go") && p.Dir == "": // the go command names each file by its absolute path
			p.Dir = filepath.Dir(a)
		}
	}
	return p
}

// Rewrite returns the compiler arguments without the coverage flag: every
// -d flag's "libfuzzer" setting is taken out, and a -d flag left empty is
// dropped. Other arguments are kept in order.
func Rewrite(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if !strings.HasPrefix(a, "-d=") {
			out = append(out, a)
			continue
		}
		var kept []string
		for _, s := range strings.Split(strings.TrimPrefix(a, "-d="), ",") {
			if s != instrumentFlag && !strings.HasPrefix(s, instrumentFlag+"=") {
				kept = append(kept, s)
			}
		}
		if len(kept) > 0 {
			out = append(out, "-d="+strings.Join(kept, ","))
		}
	}
	return out
}

// VersionLine returns the compiler's version line with the scope's ID in
// it. A release compiler's whole line is its ID: the scope's is added as a
// last field. A development compiler's ID is the content part of its
// trailing buildID=... field: the scope's is added to that field.
func VersionLine(line, id string) string {
	line = strings.TrimRight(line, "\n")
	f := strings.Fields(line)
	if n := len(f); n > 0 && strings.HasPrefix(f[n-1], "buildID=") {
		return line + "-lwcover" + id + "\n"
	}
	return line + " lwcover=" + id + "\n"
}

// Env is what a wrapper run reads of its process: the main module's
// directory, found from the working directory (FindModuleDir).
type Env struct {
	// ModuleDir is the main module's directory: the nearest directory at
	// or above the working directory holding a go.mod; "" when none does.
	ModuleDir string
}

// FindModuleDir returns the nearest directory at or above dir holding a
// go.mod, or "" when none does.
func FindModuleDir(dir string) string {
	for {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !st.IsDir() {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// Run runs t under the scope: a compiler run for a package the scope
// leaves out loses its coverage flag, and the compiler's version line
// carries the scope's ID. Every other tool run is passed on as asked. A
// tool's exit status comes back as an *exec.ExitError.
func Run(s Scope, env Env, t Tool, stdin io.Reader, stdout, stderr io.Writer) error {
	if t.Path == "" {
		return errors.New("lwcover: no tool to run (the go command runs lwcover as -toolexec, with the tool's path and arguments)")
	}
	args := t.Args
	if t.isCompile() && !t.isVersion() && !s.Covers(t.Package(), env.ModuleDir) {
		args = Rewrite(args)
	}
	cmd := exec.Command(t.Path, args...)
	cmd.Stdin, cmd.Stderr = stdin, stderr
	if !t.isCompile() || !t.isVersion() {
		cmd.Stdout = stdout
		return cmd.Run()
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return err
	}
	if _, err := io.WriteString(stdout, VersionLine(out.String(), s.ID(env.ModuleDir))); err != nil {
		return fmt.Errorf("lwcover: writing the compiler's version: %w", err)
	}
	return nil
}
