package inproc

import (
	"errors"
	"io"
	"testing"
)

func TestChanPipe(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := []struct {
		name     string
		writes   []string
		closeErr error // nil: Close
		wantRead string
		wantErr  error
	}{
		{"pipe - writes then close - pass", []string{"a", "bc", "", "def"}, nil, "abcdef", io.EOF},
		{"pipe - close with error after writes - pass", []string{"x", "y"}, boom, "xy", boom},
		{"pipe - nothing written - pass", nil, nil, "", io.EOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newChanPipe()
			for _, w := range tc.writes {
				if n, err := p.Write([]byte(w)); err != nil || n != len(w) {
					t.Fatalf("Write(%q): got (%d, %v), want (%d, nil)", w, n, err, len(w))
				}
			}
			if tc.closeErr == nil {
				p.Close()
			} else {
				p.CloseWithError(tc.closeErr)
			}
			got, err := io.ReadAll(p) // ReadAll turns io.EOF into nil
			if tc.wantErr == io.EOF {
				if err != nil {
					t.Fatalf("read: got error %v, want none", err)
				}
			} else if !errors.Is(err, tc.wantErr) {
				t.Fatalf("read: got error %v, want %v", err, tc.wantErr)
			}
			if string(got) != tc.wantRead {
				t.Fatalf("read: got %q, want %q", got, tc.wantRead)
			}
			if _, err := p.Write([]byte("late")); !errors.Is(err, io.ErrClosedPipe) {
				t.Fatalf("write after close: got %v, want %v", err, io.ErrClosedPipe)
			}
		})
	}
}

func TestChanPipe_ReaderGone(t *testing.T) {
	t.Parallel()
	p := newChanPipe()
	// fill the queue so that the next write blocks, then close the reader
	for range pipeDepth {
		if _, err := p.Write([]byte("f")); err != nil {
			t.Fatalf("write while queue has room: got %v, want nil", err)
		}
	}
	done := make(chan error, 1)
	go func() { _, err := p.Write([]byte("blocked")); done <- err }()
	p.CloseRead()
	if err := <-done; !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("pipe - blocked write after reader close - fail: got %v, want %v", err, io.ErrClosedPipe)
	}
	if _, err := p.Read(make([]byte, 1)); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("pipe - read after reader close - fail: got %v, want %v", err, io.ErrClosedPipe)
	}
}
