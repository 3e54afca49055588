package history_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// FuzzLoad feeds arbitrary bytes to cassette.Load and history.Build. They
// must never panic, and must fail only with the package sentinels. A history
// they accept must keep its invariants.
func FuzzLoad(f *testing.F) {
	var fixtures []string
	for _, glob := range []string{"testdata/*.yaml", "../testdata/*/*.yaml"} { // this package's and the shared ones
		paths, err := filepath.Glob(glob)
		if err != nil {
			f.Fatal(err)
		}
		fixtures = append(fixtures, paths...)
	}
	for _, p := range fixtures {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	dir := f.TempDir()
	for k, o := range []synth.CassetteOptions{{}, {PageSize: 2, BookmarkEvery: 1}} {
		p := filepath.Join(dir, "synth"+string(rune('a'+k))+".yaml")
		if err := synthFile(f, o).Save(p); err != nil {
			f.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	path := filepath.Join(dir, "f.yaml") // one input at a time per process
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		file, err := cassette.Load(path)
		if err != nil {
			if !errors.Is(err, cassette.ErrFormat) {
				t.Errorf("Load: got error %v, want one wrapping ErrFormat", err)
			}
			return
		}
		h, err := history.Build(file)
		if err != nil {
			if !errors.Is(err, cassette.ErrFormat) && !errors.Is(err, history.ErrContradiction) {
				t.Errorf("Build: got error %v, want one wrapping ErrFormat or ErrContradiction", err)
			}
			return
		}
		for _, l := range h.Logs {
			checkLog(t, l)
		}
	})
}

// checkLog checks the invariants of a built log.
func checkLog(t *testing.T, l *history.Log) {
	t.Helper()
	ord := l.Order()
	for i, e := range l.Events {
		if i > 0 && ord.Less(e.RV(), l.Events[i-1].RV()) {
			t.Errorf("%s: event %d: got RV %s after %s, want RV order", l.Resource, i, e.RV(), l.Events[i-1].RV())
		}
		if (e.Prev == nil) != (e.Type == history.Added) {
			t.Errorf("%s: event %d: %s with previous state %v, want one exactly when not ADDED", l.Resource, i, e.Type, e.Prev != nil)
		}
		if len(e.Object.WithKind(l.Resource.Kind, l.Resource.GroupVersion())) == 0 {
			t.Errorf("%s: event %d: got empty JSON from WithKind", l.Resource, i)
		}
	}
	if got, err := l.Position(l.LastRV()); err != nil || got != l.End() {
		t.Errorf("%s: Position(LastRV %s): got %d, %v, want %d, nil", l.Resource, l.LastRV(), got, err, l.End())
	}
	for p := 0; p <= l.End(); p++ {
		if got, err := l.Position(l.RVAt(p)); err != nil || got < p {
			t.Errorf("%s: Position(RVAt(%d) = %s): got %d, %v, want at least %d, nil", l.Resource, p, l.RVAt(p), got, err, p)
		}
	}
	if final := l.StateAt(l.End()); len(final) > len(l.Initial)+len(l.Events) {
		t.Errorf("%s: final state: got %d objects, want at most %d", l.Resource, len(final), len(l.Initial)+len(l.Events))
	}
}

// FuzzBuild feeds arbitrary list and watch bodies straight to
// history.Build, past the YAML layer FuzzLoad mostly exercises. It feeds a
// LIST, a watch with a fuzzed query, and a relist.
func FuzzBuild(f *testing.F) {
	wl := "sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
	seeds := []struct{ list, watchQuery, watch, relist string }{
		{listBody("10", "", cm("a", "5"), cm("b", "6")), "resourceVersion=10",
			ev("ADDED", cm("c", "11")) + "\n" + bookmark("12", false) + "\n" + ev("DELETED", cm("a", "13")) + "\n",
			listBody("20", "", cmUID("b", "15", "new"), cm("d", "18"))},
		{listBody("x", "", cm("a", "p")), "resourceVersion=x",
			ev("MODIFIED", cm("a", "q")) + "\n" + bookmark("r", false) + "\n", listBody("s", "", cm("b", "t"))},
		{listBody("10", "t", cm("a", "5")), wl,
			ev("ADDED", cm("a", "5")) + "\n" + bookmark("9", true) + "\n" + ev("MODIFIED", cm("a", "10")) + "\n", "{}"},
		{"{}", "resourceVersion=0",
			ev("ADDED", cm("b", "9")) + "\n" + ev("ADDED", cm("a", "5")) + "\n" + ev("DELETED", cm("b", "12")) + "\n", listBody("3", "", cm("a", "5"))},
	}
	for _, s := range seeds {
		f.Add([]byte(s.list), s.watchQuery, []byte(s.watch), []byte(s.relist))
	}
	f.Fuzz(func(t *testing.T, lb []byte, watchQuery string, wb, rb []byte) {
		ints := []cassette.Interaction{
			get("/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0", string(lb)),
			get("/api/v1/namespaces/ns/configmaps?watch=true&"+watchQuery, string(wb)),
			get("/api/v1/namespaces/ns/configmaps", string(rb)),
		}
		h, err := history.Build(file("b.yaml", ints...))
		if err != nil {
			if !errors.Is(err, cassette.ErrFormat) && !errors.Is(err, history.ErrContradiction) {
				t.Errorf("Build: got error %v, want one wrapping ErrFormat or ErrContradiction", err)
			}
			return
		}
		for _, l := range h.Logs {
			checkLog(t, l)
		}
	})
}
