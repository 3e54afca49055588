package fuzz

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/internal/testutil"
)

// consumerGoMod is the go.mod of a controller module pinned to the oldest
// client-go lwreplay supports, as a controller-runtime v0.23 project is.
const consumerGoMod = `module example.com/controller

go 1.26.0

require (
	github.com/lwreplay/lwreplay v0.0.0-00010101000000-000000000000
	k8s.io/api VERSION
	k8s.io/apimachinery VERSION
	k8s.io/client-go VERSION
)

replace github.com/lwreplay/lwreplay => ROOT
`

// consumerTest is its fuzz test: the informers of a SharedInformerFactory
// over the replay's clientset, as most controllers build them.
const consumerTest = `//go:debug randseednop=0
package controller

import (
	"context"
	"testing"

	"k8s.io/client-go/informers"

	"github.com/lwreplay/lwreplay/fuzz"
)

var factoryTarget = fuzz.Target{Name: "factory", Doc: "a SharedInformerFactory's configmaps informer",
	Run: func(ctx context.Context, env *fuzz.Env) error {
		cs, err := env.Clientset()
		if err != nil {
			return err
		}
		factory := informers.NewSharedInformerFactory(cs, 0)
		inf := factory.Core().V1().ConfigMaps().Informer()
		if _, err := env.Probe.AddEventHandler(inf, nil); err != nil {
			return err
		}
		factory.Start(ctx.Done())
		<-ctx.Done()
		factory.Shutdown()
		return nil
	}}

func FuzzController(f *testing.F) {
	fuzz.Run(f, fuzz.Options{Cassettes: []string{CASSETTES}, Target: factoryTarget})
}
`

// TestControllerModuleKeepsItsClientGo builds, in a temp dir, a controller
// module that requires the client-go go.mod requires (the oldest
// supported). It adds lwreplay and a fuzz.Run target. It checks that go
// mod tidy keeps its client-go and that go test passes. It needs the Go
// module proxy (or a module cache holding every module), and skips loudly
// without it.
func TestControllerModuleKeepsItsClientGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module: not in -short")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	version := testutil.SelectedVersion(t, "k8s.io/client-go")
	var cassettes []string
	for _, c := range Glob(filepath.Join(root, "cassettes", "real-configmaps-pods-*.yaml")) {
		cassettes = append(cassettes, `"`+filepath.ToSlash(c)+`"`)
	}
	if len(cassettes) != 2 {
		t.Fatalf("cassettes: got %d, want the 2 shipped real ones", len(cassettes))
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", strings.NewReplacer("VERSION", version, "ROOT", root).Replace(consumerGoMod))
	write("controller_test.go", strings.Replace(consumerTest, "CASSETTES", strings.Join(cassettes, ", "), 1))

	run := func(args ...string) (string, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	if out, err := run("mod", "tidy"); err != nil {
		if testutil.ProxyUnreachable(out) {
			t.Skipf("SKIPPED: the Go module proxy is unreachable, so no module can be built: go mod tidy: %v\n%s", err, out)
		}
		t.Fatalf("go mod tidy: got error %v, want none\n%s", err, out)
	}
	out, err := run("list", "-m", "-f", "{{.Version}}", "k8s.io/client-go")
	if got := strings.TrimSpace(out); err != nil || got != version {
		t.Errorf("client-go after go mod tidy: got %q (error %v), want the %s the module required", got, err, version)
	}
	for _, m := range []string{"k8s.io/api", "k8s.io/apimachinery"} {
		out, err := run("list", "-m", "-f", "{{.Version}}", m)
		if got := strings.TrimSpace(out); err != nil || got != version {
			t.Errorf("%s after go mod tidy: got %q (error %v), want %s", m, got, err, version)
		}
	}
	out, err = run("test", "-count=1", "-v", "-run", "FuzzController", "./...")
	seeds := strings.Count(out, "    --- PASS: FuzzController/")
	if err != nil || seeds == 0 {
		t.Errorf("go test in the controller module: got error %v and %d passing seeds, want none and some\n%s", err, seeds, out)
	}
	t.Logf("controller module on client-go %s: %d seeds passed", version, seeds)
}
