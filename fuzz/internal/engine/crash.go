package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"
)

// crashPrefix starts the name of a worker's crash output in NotesDir.
const crashPrefix = "crash-"

// KeepCrashOutput makes a worker's fatal errors land in a file of
// NotesDir as well as on its standard error, which go test's engine
// drops: an unrecovered panic, a fatal runtime error, or the engine's own
// "deadlocked!" at 10 s. Every goroutine is printed. The coordinator then
// says what ended a worker ("hung or terminated unexpectedly") instead
// of nothing (Crashes). It is best effort: a file that cannot be made
// leaves the worker as it was.
func KeepCrashOutput(fuzzName string) {
	dir := NotesDir(fuzzName)
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s%d.txt", crashPrefix, os.Getpid())))
	if err != nil {
		return
	}
	if debug.SetCrashOutput(f, debug.CrashOptions{}) != nil {
		f.Close()
		os.Remove(f.Name())
		return
	}
	f.Close() // SetCrashOutput holds a duplicate
	debug.SetTraceback("all")
}

// Crash is one worker's crash output.
type Crash struct {
	// Path is the file it is in.
	Path string
	// Text is what the runtime printed.
	Text string
}

// Crashes returns the crash outputs of fuzzName's workers written at or
// after since that are not empty, oldest first.
func Crashes(fuzzName string, since time.Time) ([]Crash, error) {
	dir := NotesDir(fuzzName)
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type dated struct {
		Crash
		at time.Time
	}
	var found []dated
	for _, e := range entries {
		if e.IsDir() || !strings.HasPrefix(e.Name(), crashPrefix) {
			continue
		}
		info, err := e.Info()
		if err != nil || info.Size() == 0 || info.ModTime().Before(since) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		found = append(found, dated{Crash{Path: path, Text: string(raw)}, info.ModTime()})
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].at.Before(found[j].at) })
	out := make([]Crash, len(found))
	for i, d := range found {
		out[i] = d.Crash
	}
	return out, nil
}

// RemoveEmptyCrashes removes the crash output files of fuzzName's workers
// that stayed empty: the workers that ended well.
func RemoveEmptyCrashes(fuzzName string) {
	dir := NotesDir(fuzzName)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && !e.IsDir() && strings.HasPrefix(e.Name(), crashPrefix) && info.Size() == 0 {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir) // only when empty
}
