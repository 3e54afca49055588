package history_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// describe renders everything a history holds per resource, objects' JSON
// included, so that two builds can be compared.
func describe(h *history.History) string {
	var b strings.Builder
	obj := func(o *history.Object) {
		fmt.Fprintf(&b, " %s %s %s %v %v %s\n", o.Key(), o.UID, o.ResourceVersion, o.Labels, o.Annotations, o.Raw)
	}
	for _, l := range h.Logs {
		fmt.Fprintf(&b, "%s start %s last %s lists %d watches %d\n", l.Resource, l.StartRV, l.LastRV(), l.Lists, l.Watches)
		for _, o := range l.Initial {
			obj(o)
		}
		for _, e := range l.Events {
			fmt.Fprintf(&b, "%s %v %s", e.Type, e.At, e.From)
			obj(e.Object)
		}
		fmt.Fprintf(&b, "marks %v errors %d\n", l.Marks, len(l.Errors))
	}
	return b.String()
}

// bigCassette writes a synthetic cassette whose watch streams are over a
// megabyte (so that WithLazyBodies leaves them in the file).
func bigCassette(t *testing.T) string {
	t.Helper()
	f, err := synth.Generate(synth.GenerateOptions{Objects: 60, Events: 3000, Seed: 3, PageSize: 25})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func build(t *testing.T, path string, opts ...cassette.LoadOption) *history.History {
	t.Helper()
	f, err := cassette.Load(path, opts...)
	if err != nil {
		t.Fatalf("load %s: got error %v, want none", path, err)
	}
	h, err := history.Build(f)
	if err != nil {
		t.Fatalf("build %s: got error %v, want none", path, err)
	}
	return h
}

func TestBuild_LargeRecordings(t *testing.T) {
	big := bigCassette(t)
	paths, _ := filepath.Glob("../cassettes/*.yaml")
	for _, p := range listedFiles(t) {
		paths = append(paths, filepath.Join(sharedTestdata, p))
	}
	paths = append(paths, big)
	built := 0
	for _, p := range paths {
		if f, err := cassette.Load(p); err != nil || func() error { _, err := history.Build(f); return err }() != nil {
			continue // a fixture that does not build: other tests' concern
		}
		built++
		want := describe(build(t, p))
		tests := []struct {
			name  string
			spill int64
			lazy  bool
		}{
			{"bodies left in the file", 64 << 20, true},
			{"objects' JSON in a mapped file", 1, false},
			{"both", 1, true},
		}
		for _, tt := range tests {
			t.Run(filepath.Base(p)+" - "+tt.name+" - pass", func(t *testing.T) {
				tmp := t.TempDir()
				t.Setenv("TMPDIR", tmp)
				defer history.SetSpillAt(tt.spill)()
				h := build(t, p, cassette.WithLazyBodies(tt.lazy))
				if got := describe(h); got != want {
					t.Errorf("got a history that differs from a plain build's:\n%.2000s\nwant:\n%.2000s", got, want)
				}
				if maps, err := os.ReadFile("/proc/self/maps"); err == nil && tt.spill == 1 && !strings.Contains(string(maps), filepath.Join(tmp, "lwreplay-history-")) {
					t.Errorf("/proc/self/maps: got no mapping of a lwreplay-history file in %s, want the objects' JSON mapped", tmp)
				}
				if left, _ := os.ReadDir(tmp); len(left) != 0 {
					t.Errorf("temporary directory: got %d entries left (%s), want none", len(left), left[0].Name())
				}
			})
		}
	}
	if built < 8 {
		t.Errorf("got %d recordings built, want the shipped cassettes and the shared fixtures that build (8 or more)", built)
	}
	// The big cassette's streams were left in the file.
	f, err := cassette.Load(big, cassette.WithLazyBodies(true))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, i := range f.Interactions {
		if i.BodyInFile() {
			n++
		}
	}
	if n == 0 {
		t.Errorf("big cassette: got no body left in the file, want its watch streams left there")
	}
}

func TestBuild_MappedJSONIsReadOnlyToAppend(t *testing.T) {
	defer history.SetSpillAt(1)()
	h := build(t, bigCassette(t))
	e := h.Logs[0].Events[0]
	before := append([]byte(nil), h.Logs[0].Events[1].Object.Raw...)
	_ = append(e.Object.Raw, "garbage"...) // must not write into the next object's JSON
	if got := h.Logs[0].Events[1].Object.Raw; !bytes.Equal(got, before) {
		t.Errorf("next object's JSON after an append to one: got %.60s, want %.60s", got, before)
	}
}

func TestBuild_SharesUnchangedMetadata(t *testing.T) {
	h := build(t, bigCassette(t))
	shared, changed := 0, 0
	for _, l := range h.Logs {
		for _, e := range l.Events {
			if e.Prev == nil || e.Type == history.Deleted {
				continue
			}
			same := reflect.ValueOf(e.Object.Labels).Pointer() == reflect.ValueOf(e.Prev.Labels).Pointer()
			switch {
			case reflect.DeepEqual(e.Object.Labels, e.Prev.Labels) && !same:
				t.Errorf("%s: labels unchanged from the previous version: got a map of their own, want the previous one's", e.From)
			case !reflect.DeepEqual(e.Object.Labels, e.Prev.Labels) && same:
				t.Errorf("%s: labels changed: got the previous version's map, want one of their own", e.From)
			case same:
				shared++
			default:
				changed++
			}
		}
	}
	if shared == 0 || changed == 0 {
		t.Errorf("got %d events sharing their labels and %d with new ones, want some of each", shared, changed)
	}
	// Objects with equal labels share one map.
	byContent := map[string]map[uintptr]bool{}
	for _, l := range h.Logs {
		for _, e := range l.Events {
			c := fmt.Sprint(e.Object.Labels)
			if byContent[c] == nil {
				byContent[c] = map[uintptr]bool{}
			}
			byContent[c][reflect.ValueOf(e.Object.Labels).Pointer()] = true
		}
	}
	for c, ptrs := range byContent {
		if len(ptrs) != 1 {
			t.Errorf("labels %s: got %d maps, want 1 shared by every object carrying them", c, len(ptrs))
		}
	}
}

func TestBuild_FrameLayouts(t *testing.T) {
	obj := `{"metadata":{"name":"a","namespace":"ns","uid":"u","resourceVersion":"11"},"data":{"k":"v"}}`
	compact := ev("ADDED", obj) + "\n" + ev("MODIFIED", strings.Replace(obj, `"11"`, `"12"`, 1)) + "\n"
	pretty := "{\n  \"type\": \"ADDED\",\n  \"object\": {\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", " + obj[1:] + "\n}\n" +
		`{"object":{"kind":"ConfigMap","apiVersion":"v1",` + strings.Replace(obj, `"11"`, `"12"`, 1)[1:] + `,"type":"MODIFIED"}` + "\n"
	oneLine := strings.ReplaceAll(compact, "\n", "")
	want := ""
	for _, tt := range []struct{ name, body string }{
		{"compact - one frame per line", compact},
		{"pretty-printed, kind later, type last", pretty},
		{"two frames on one line", oneLine},
	} {
		t.Run(tt.name+" - pass", func(t *testing.T) {
			h, err := history.Build(file("c.yaml", list("resourceVersion=0", "10", ""), watch("watch=true&resourceVersion=10", tt.body)))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			var got strings.Builder
			for _, e := range h.Logs[0].Events {
				fmt.Fprintf(&got, "%s %s %s;", e.Type, e.RV(), e.Object.Raw)
			}
			if want == "" {
				want = got.String()
			}
			if got.String() != want || len(h.Logs[0].Events) != 2 {
				t.Errorf("got events %s, want %s", got.String(), want)
			}
		})
	}
}

func TestBuild_SpillFileFails(t *testing.T) {
	big := bigCassette(t)
	want := describe(build(t, big))
	tests := []struct {
		name   string
		create func() (*os.File, error)
	}{
		{"temporary file cannot be made - JSON stays in the heap - pass", func() (*os.File, error) {
			return nil, os.ErrPermission
		}},
		{"temporary file cannot be written - JSON stays in the heap - pass", func() (*os.File, error) {
			f, err := os.CreateTemp(t.TempDir(), "spill-*")
			if err == nil {
				err = f.Close() // every write fails
			}
			return f, err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer history.SetSpillAt(1)()
			defer history.SetCreateSpill(tt.create)()
			h := build(t, big, cassette.WithLazyBodies(true))
			if got := describe(h); got != want {
				t.Errorf("got a history that differs from a plain build's:\n%.2000s\nwant:\n%.2000s", got, want)
			}
		})
	}
}

// TestBuild_ReusedBatchBuffers builds watch streams of several batches.
// (history reads a stream 2048 frames at a time, and reuses a batch's
// buffer once its JSON is in the mapped file.) Every object's JSON stays
// what a build that keeps it in the heap reads.
func TestBuild_ReusedBatchBuffers(t *testing.T) {
	f, err := synth.Generate(synth.GenerateOptions{Objects: 200, Events: 20000, Seed: 5, PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "long.yaml")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	want := describe(build(t, path))
	tests := []struct {
		name  string
		spill int64
		lazy  bool
	}{
		{"reused buffers - JSON in a mapped file - pass", 1, false},
		{"reused buffers - bodies left in the file too - pass", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir())
			defer history.SetSpillAt(tt.spill)()
			h := build(t, path, cassette.WithLazyBodies(tt.lazy))
			longest := 0
			for _, l := range h.Logs {
				longest = max(longest, len(l.Events))
			}
			if longest < 3*2048 {
				t.Fatalf("got a longest log of %d events, want 3 batches of 2048 or more", longest)
			}
			if got := describe(h); got != want {
				t.Errorf("got a history that differs from a plain build's:\n%.2000s\nwant:\n%.2000s", got, want)
			}
		})
	}
}
