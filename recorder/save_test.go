package recorder

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

func TestFlushWhileWatchOpen(t *testing.T) {
	t.Parallel()
	parts := []string{
		event("ADDED", cmObject("ns", "a", "11", "x")), event("ADDED", cmObject("ns", "b", "12", "x")),
		event("MODIFIED", cmObject("ns", "a", "13", "y")), event("DELETED", cmObject("ns", "b", "14", "x")),
	}
	path := filepath.Join(t.TempDir(), "rec.yaml")
	rec, err := New(path, WithFlushInterval(0))
	if err != nil {
		t.Fatalf("New: got error %v, want none", err)
	}
	up := &upstream{answers: map[string]answer{watchURI: {code: 200, parts: parts}}}
	resp := get(t, rec.Wrap(up), watchURI, nil)
	tests := []struct {
		name   string
		reads  int
		flush  bool
		close  bool
		frames int
	}{
		{name: "flush - watch open after two frames - two frames written - pass", reads: 2, flush: true, frames: 2},
		{name: "flush - watch open after three frames - three frames written - pass", reads: 1, flush: true, frames: 3},
		{name: "close - watch still open - its frames so far kept - pass", close: true, frames: 3},
		{name: "after close - client reads on - file unchanged - pass", reads: 1, frames: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readN(t, resp.Body, tt.reads, 4096)
			if tt.flush {
				if err := rec.Flush(); err != nil {
					t.Fatalf("Flush: got error %v, want none", err)
				}
			}
			if tt.close {
				if err := rec.Close(); err != nil {
					t.Fatalf("Close: got error %v, want none", err)
				}
			}
			its := interactions(t, path)
			if len(its) != 1 {
				t.Fatalf("interactions: got %d, want 1", len(its))
			}
			if got := len(its[0].FrameOffsets); got != tt.frames {
				t.Errorf("frames: got %d, want %d", got, tt.frames)
			}
			f, _ := cassette.Load(path)
			h, err := history.Build(f)
			if err != nil {
				t.Fatalf("build: got error %v, want none", err)
			}
			if got := len(h.Logs[0].Events); got != tt.frames {
				t.Errorf("history events: got %d, want %d", got, tt.frames)
			}
		})
	}
	resp.Body.Close()
	if err := rec.Flush(); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close: got %v, want ErrClosed", err)
	}
}

// rotationUpstream returns answers for a LIST and a watch of many events,
// and the history they make as one file (with the LIST when withList).
func TestUnwritableOutput(t *testing.T) {
	t.Parallel()
	list := cmList("10", cmItem("ns", "a", "8", "x"))
	tests := []struct {
		name   string
		setup  func(t *testing.T, dir string) // after the first successful flush
		undo   func(t *testing.T, dir string)
		rotate bool
		bad    string // the file the error must name
	}{
		{name: "output - directory read-only after the first flush - error names the file, earlier file intact - fail",
			setup: func(t *testing.T, dir string) {
				if !makeReadOnly(t, dir) {
					t.Skip("cannot make a directory read-only here")
				}
			}, bad: "incident.yaml"},
		{name: "output - rotation target taken by a directory - error names it, next flush writes it - fail",
			setup: func(t *testing.T, dir string) {
				if err := os.MkdirAll(filepath.Join(dir, "incident_001.yaml", "x"), 0o755); err != nil {
					t.Fatalf("mkdir: got error %v, want none", err)
				}
			},
			undo: func(t *testing.T, dir string) {
				if err := os.RemoveAll(filepath.Join(dir, "incident_001.yaml")); err != nil {
					t.Fatalf("remove: got error %v, want none", err)
				}
			}, rotate: true, bad: "incident_001.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "incident.yaml")
			rec, err := New(path, WithFlushInterval(0))
			if err != nil {
				t.Fatalf("New: got error %v, want none", err)
			}
			defer rec.Close()
			up := &upstream{answers: map[string]answer{"": {code: 200, parts: []string{list}}}}
			rt := rec.Wrap(up)
			readAll(t, get(t, rt, listURI, nil), 512)
			if err := rec.Flush(); err != nil {
				t.Fatalf("first Flush: got error %v, want none", err)
			}
			before, _ := os.ReadFile(path)
			tt.setup(t, dir)
			readAll(t, get(t, rt, "/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0", nil), 512)
			if tt.rotate {
				// the first rotation cannot write the next file; the
				// second cannot write it out for good, and keeps it
				err = rec.rotateNow()
				readAll(t, get(t, rt, "/api/v1/namespaces/ns2/configmaps?limit=500&resourceVersion=0", nil), 512)
				if err2 := rec.rotateNow(); !errors.Is(err2, ErrWrite) || !strings.Contains(err2.Error(), filepath.Join(dir, tt.bad)) {
					t.Errorf("second rotation: got error %v, want ErrWrite naming %s", err2, tt.bad)
				}
			} else {
				err = rec.Flush()
			}
			if !errors.Is(err, ErrWrite) || !strings.Contains(err.Error(), filepath.Join(dir, tt.bad)) {
				t.Fatalf("write: got error %v, want ErrWrite naming %s", err, tt.bad)
			}
			if after, _ := os.ReadFile(path); !tt.rotate && string(after) != string(before) {
				t.Errorf("earlier file: got it changed, want it as flushed")
			}
			if _, err := cassette.Load(path); err != nil {
				t.Errorf("earlier file: got error %v loading it, want none", err)
			}
			if tt.undo == nil {
				return
			}
			tt.undo(t, dir)
			if err := rec.Close(); err != nil {
				t.Fatalf("Close after the fix: got error %v, want none", err)
			}
			files, h := loadDir(t, dir)
			if len(files) != 3 || h.Logs[0].Lists != 1 {
				t.Errorf("after the fix: got %d files, %d lists, want 3 files, 1 list", len(files), h.Logs[0].Lists)
			}
			if got := len(interactions(t, filepath.Join(dir, tt.bad))); got != 1 {
				t.Errorf("%s: got %d interactions, want 1", tt.bad, got)
			}
		})
	}
	t.Run("output - New under a regular file - fail", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatalf("write: got error %v, want none", err)
		}
		_, err := New(filepath.Join(file, "x.yaml"))
		if !errors.Is(err, ErrWrite) || !strings.Contains(err.Error(), filepath.Join(file, "x.yaml")) {
			t.Errorf("New: got error %v, want ErrWrite naming the path", err)
		}
	})
}

// rotateNow rotates whatever the size.
func TestRecordConcurrentStress(t *testing.T) {
	t.Parallel()
	const streams, frames = 8, 300
	tests := []struct {
		name string
		opts []Option
	}{
		{name: "concurrent streams - flushing and rotating all along - every frame recorded once - pass",
			opts: []Option{WithFlushInterval(time.Millisecond), WithMaxSize(8 << 10)}},
		{name: "concurrent streams - one file - every frame recorded once - pass", opts: []Option{WithFlushInterval(time.Millisecond)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rec, err := New(filepath.Join(dir, "incident.yaml"), tt.opts...)
			if err != nil {
				t.Fatalf("New: got error %v, want none", err)
			}
			answers := map[string]answer{}
			for s := range streams {
				var body strings.Builder
				body.WriteString(event("ADDED", fmt.Sprintf(`{"kind":"Widget","apiVersion":"v1","metadata":{"name":"w","resourceVersion":"%d"}}`, 11)))
				for k := 1; k < frames; k++ {
					body.WriteString(event("MODIFIED", fmt.Sprintf(`{"kind":"Widget","apiVersion":"v1","metadata":{"name":"w","resourceVersion":"%d"},"n":"%s"}`, 11+k, strings.Repeat("}", k%7))))
				}
				answers[fmt.Sprintf("/api/v1/widgets%d?resourceVersion=10&watch=true", s)] = answer{code: 200, parts: chunk(body.String(), 61)}
			}
			rt := rec.Wrap(&syncUpstream{up: &upstream{answers: answers}})
			var wg sync.WaitGroup
			for s := range streams {
				wg.Go(func() {
					req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/api/v1/widgets%d?resourceVersion=10&watch=true", testHost, s), nil)
					resp, err := rt.RoundTrip(req)
					if err != nil {
						t.Errorf("watch %d: got error %v, want none", s, err)
						return
					}
					buf := make([]byte, 45)
					for {
						if _, err := resp.Body.Read(buf); err != nil {
							break
						}
					}
					resp.Body.Close()
				})
			}
			wg.Go(func() {
				for range 20 {
					if err := rec.Flush(); err != nil {
						t.Errorf("Flush: got error %v, want none", err)
					}
					_ = rec.Stats()
				}
			})
			wg.Wait()
			if err := rec.Close(); err != nil {
				t.Fatalf("Close: got error %v, want none", err)
			}
			_, h := loadDir(t, dir)
			if len(h.Logs) != streams {
				t.Fatalf("logs: got %d, want %d", len(h.Logs), streams)
			}
			for _, l := range h.Logs {
				if len(l.Events) != frames || l.LastRV() != fmt.Sprint(10+frames) {
					t.Errorf("%s: got %d events up to %s, want %d up to %d", l.Resource, len(l.Events), l.LastRV(), frames, 10+frames)
				}
			}
			if st := rec.Stats(); st.Events != streams*frames || st.Watches != streams {
				t.Errorf("stats: got %d events in %d watches, want %d in %d", st.Events, st.Watches, streams*frames, streams)
			}
		})
	}
}

// syncUpstream serializes calls to a hand-made upstream.
type syncUpstream struct {
	mu sync.Mutex
	up *upstream
}

func (s *syncUpstream) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.up.RoundTrip(req)
}

func TestFlushSpacing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		interval time.Duration
		took     time.Duration
		want     time.Duration
	}{
		{name: "flush spacing - quick write - the interval - pass", interval: 5 * time.Second, took: 100 * time.Millisecond, want: 5 * time.Second},
		{name: "flush spacing - write of a quarter of the interval - the interval - pass", interval: 4 * time.Second, took: time.Second, want: 4 * time.Second},
		{name: "flush spacing - slow write - four times its time - pass", interval: 5 * time.Second, took: 2 * time.Second, want: 8 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := flushSpacing(tt.interval, tt.took); got != tt.want {
				t.Errorf("flushSpacing(%s, %s): got %s, want %s", tt.interval, tt.took, got, tt.want)
			}
		})
	}
}
