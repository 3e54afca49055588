package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/lwreplay/lwreplay/internal/cluster"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// ship makes the tests copy their recordings into the repository's
// cassettes/ directory.
var ship = flag.Bool("e2e.ship", false, "copy the recorded cassettes into ../cassettes as real-*.yaml")

// shipDir is where -e2e.ship puts cassettes, relative to this package.
const shipDir = "../cassettes"

// shared is the cluster most tests use, started by the first that asks and
// stopped by TestMain.
var shared struct {
	once sync.Once
	c    *cluster.Cluster
	err  error
}

// binary is the lwreplay program the tests run as a subprocess, built by
// the first test that asks into a directory TestMain removes.
var binary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	flag.Parse()
	testutil.QuietKlog()
	code := m.Run()
	if shared.c != nil {
		if err := shared.c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: stopping the shared cluster:", err)
			code = 1
		}
	}
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// sharedCluster returns the shared cluster (default flags), starting it on
// first use. It skips t quietly under -short, and loudly when the binaries
// cannot be built.
func sharedCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	cluster.SkipShort(t)
	shared.once.Do(func() {
		shared.c, shared.err = cluster.Start(context.Background())
	})
	if shared.err != nil {
		cluster.Skip(t, shared.err)
		t.Fatalf("shared cluster: got error %v, want a running cluster", shared.err)
	}
	return shared.c
}

// lwreplayBinary builds ./cmd/lwreplay once and returns its path.
func lwreplayBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		binary.dir, binary.err = os.MkdirTemp("", "lwreplay-e2e-bin-")
		if binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "lwreplay")
		cmd := exec.Command(goTool(), "build", "-o", binary.path, "./cmd/lwreplay")
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build ./cmd/lwreplay: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatalf("lwreplay binary: got error %v, want a binary", binary.err)
	}
	return binary.path
}

// goTool returns the go command of the toolchain running the tests.
func goTool() string {
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return "go"
}
