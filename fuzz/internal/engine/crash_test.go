package engine

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// crashEnv tells the test binary, run again, to be a worker that keeps its
// crash output and then does what the variable says.
const crashEnv = "LWREPLAY_ENGINE_TEST_WORKER"

func TestMain(m *testing.M) {
	switch os.Getenv(crashEnv) {
	case "":
		os.Exit(m.Run())
	case "panic":
		KeepCrashOutput("FuzzCrash")
		go func() { panic("a goroutine's panic nobody recovers") }()
		select {} // the panic ends the process
	case "nil-map":
		KeepCrashOutput("FuzzCrash")
		var m map[int]int
		m[0] = 1
	case "clean":
		KeepCrashOutput("FuzzCrash")
		os.Exit(0)
	}
	os.Exit(3) // not reached by a crash
}

func TestKeepCrashOutput(t *testing.T) {
	tests := []struct {
		name string
		do   string
		want []string // in the crash output; nil: none kept
	}{
		{name: "worker crash output - unrecovered panic in a goroutine - kept with every goroutine - pass", do: "panic",
			want: []string{"panic: a goroutine's panic nobody recovers", "goroutine 1 ["}},
		{name: "worker crash output - runtime error - kept - pass", do: "nil-map", want: []string{"assignment to entry in nil map"}},
		{name: "worker crash output - worker ends well - none kept, file removed - pass", do: "clean"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			since := time.Now().Add(-time.Second)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), crashEnv+"="+tc.do)
			err := cmd.Run()
			if (err == nil) != (tc.want == nil) {
				t.Fatalf("worker %s: got exit %v, want a crash %v", tc.do, err, tc.want != nil)
			}
			crashes, err := Crashes("FuzzCrash", since)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(crashes) != 0 {
					t.Errorf("got %d crash outputs of a clean worker, want none", len(crashes))
				}
				RemoveEmptyCrashes("FuzzCrash")
				if _, err := os.Stat(NotesDir("FuzzCrash")); !os.IsNotExist(err) {
					t.Errorf("got notes dir %s left (%v), want it removed", NotesDir("FuzzCrash"), err)
				}
				return
			}
			if len(crashes) != 1 {
				t.Fatalf("got %d crash outputs, want 1", len(crashes))
			}
			for _, w := range tc.want {
				if !strings.Contains(crashes[0].Text, w) {
					t.Errorf("got crash output %q, want it to hold %q", crashes[0].Text, w)
				}
			}
			if c, _ := Crashes("FuzzCrash", time.Now().Add(time.Hour)); len(c) != 0 {
				t.Errorf("got %d crash outputs written before since, want none", len(c))
			}
		})
	}
}
