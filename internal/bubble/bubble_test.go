package bubble

import (
	"errors"
	"flag"
	"io"
	"os"
	"testing"
	"testing/synctest"
	"time"
)

func TestHost(t *testing.T) {
	tests := []struct {
		name string
		f    func(t *testing.T)
		want error
	}{
		{name: "host - an hour in a bubble - pass", want: nil, f: func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				time.Sleep(time.Hour)
				if d := time.Since(start); d != time.Hour {
					t.Errorf("slept: got %v, want 1h", d)
				}
			})
		}},
		{name: "host - a bubble that fails - fail", want: ErrFailed, f: func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { t.Error("deliberate") })
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			if got := Host(tc.f); !errors.Is(got, tc.want) {
				t.Errorf("Host: got %v, want %v", got, tc.want)
			}
			if d := time.Since(start); d > time.Minute {
				t.Errorf("real time: got %v, want well under the virtual hour", d)
			}
		})
	}
}

// TestOverridesExist fails naming every go test flag Host resets that the
// Go release in use no longer defines: the reset would silently do nothing.
func TestOverridesExist(t *testing.T) {
	testing.Init()
	for name := range overrides {
		t.Run("overrides - flag "+name+" - defined - pass", func(t *testing.T) {
			if flag.Lookup(name) == nil {
				t.Errorf("flag %s: got none, want testing to define it (a Go release renamed or dropped it: update bubble.overrides)", name)
			}
		})
	}
}

// TestHostQuiet runs a hosted test with os.Stdout pointed at a pipe and
// wants none of testing's own output (=== RUN, --- PASS) in it.
func TestHostQuiet(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	out := os.Stdout
	os.Stdout = w
	hostErr := Host(func(t *testing.T) { t.Log("hosted") })
	os.Stdout = out
	w.Close()
	got, _ := io.ReadAll(r)
	if hostErr != nil {
		t.Fatalf("Host: got %v, want nil", hostErr)
	}
	if len(got) != 0 {
		t.Errorf("standard output of a hosted test: got %q, want nothing", got)
	}
}
