//go:build linux

package synth_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/lwreplay/lwreplay/synth"
)

// childOptions names the environment variable that makes this test
// binary, run again as a child, write a cassette and exit. The
// variable holds the options (JSON). So the child's peak resident
// size can be read.
const childOptions = "LWREPLAY_SYNTH_RSS_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(childOptions); v != "" {
		var o synth.GenerateOptions
		if err := json.Unmarshal([]byte(v), &o); err != nil {
			os.Exit(3)
		}
		if _, err := synth.WriteCassette(os.Getenv(childOptions+"_PATH"), o); err != nil {
			os.Exit(4)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestEstimateSize_AboveMeasuredRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("writes cassettes of tens of megabytes in child processes")
	}
	tests := []struct {
		name string
		o    synth.GenerateOptions
	}{
		{"objects in pages - estimate above RSS - pass", synth.GenerateOptions{Objects: 20_000, PageSize: 500, Seed: 1}},
		{"objects in one page - estimate above RSS - pass", synth.GenerateOptions{Objects: 20_000, Seed: 1}},
		{"events - estimate above RSS - pass", synth.GenerateOptions{Objects: 1_000, Events: 150_000, PageSize: 500, BookmarkEvery: 10, Seed: 1}},
		{"pods events - estimate above RSS - pass", synth.GenerateOptions{Objects: 1_000, Events: 60_000, Kinds: []string{"pods"}, PageSize: 500, Seed: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, err := json.Marshal(tt.o)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childOptions+"="+string(opts), childOptions+"_PATH="+filepath.Join(t.TempDir(), "c.yaml"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("child: got error %v (%s), want none", err, out)
			}
			ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			if !ok {
				t.Skip("no resource usage for the child")
			}
			rss := ru.Maxrss << 10 // kilobytes on Linux
			if e := synth.EstimateSize(tt.o); e.MemoryBytes < rss {
				t.Errorf("MemoryBytes: got %d, want at least the measured peak RSS %d", e.MemoryBytes, rss)
			} else {
				t.Logf("estimate %d MiB, peak RSS %d MiB", e.MemoryBytes>>20, rss>>20)
			}
		})
	}
}
