package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/bench/internal/scale"
	"github.com/lwreplay/lwreplay/synth"
)

// TestScaleSmoke runs bench/scale.sh's measurements on a tiny synthetic
// cassette, each in a child process (this test binary, through TestMain).
// It checks the table has every row with a measured value. bench/scale.sh
// runs the same code on 10k and 100k objects with 1M events.
func TestScaleSmoke(t *testing.T) {
	dir := t.TempDir()
	lwreplay := filepath.Join(dir, "lwreplay")
	if out, err := exec.Command("go", "build", "-o", lwreplay, "../cmd/lwreplay").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/lwreplay: got error %v, want none: %s", err, out)
	}
	f, err := synth.Generate(synth.GenerateOptions{Objects: 100, Events: 600, Seed: 1, PageSize: 50})
	if err != nil {
		t.Fatalf("synth: got error %v, want none", err)
	}
	path := filepath.Join(dir, "tiny.yaml")
	if err := f.Save(path); err != nil {
		t.Fatalf("save: got error %v, want none", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	results, err := scale.Run(context.Background(), []scale.Cassette{{Name: "tiny", Path: path}}, scale.Options{
		Self: []string{self}, Lwreplay: lwreplay, RecorderEvents: 300, Rounds: 1, Log: &log,
	})
	if err != nil {
		t.Fatalf("scale tiny: got error %v, want none; log:\n%s", err, log.String())
	}
	for _, m := range scale.Measures {
		if _, ok := results[0].Children[m.String()]; !ok {
			t.Errorf("scale tiny: got no %s measurement, want one", m)
		}
	}
	if got := results[0].Children[scale.Load.String()].Figures["objects"]; got != 100 {
		t.Errorf("scale tiny: load: got %v objects, want 100", got)
	}
	rows := scale.Rows(results, scale.DefaultTargets)
	if len(rows) != 5 {
		t.Fatalf("scale tiny: got %d rows, want 5", len(rows))
	}
	for _, r := range rows {
		if r.Ratio <= 0 {
			t.Errorf("scale tiny: %s: got ratio %v, want a measured one > 0", r.Measurement, r.Ratio)
		}
	}
	var table strings.Builder
	if err := scale.Table(&table, rows); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table.String())
}
