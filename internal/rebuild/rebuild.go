// Package rebuild builds the lwreplay command against another client-go
// version, for `lwreplay fuzz --client-go` and `lwreplay mutate
// --client-go`. It writes a small temporary module, built with the Go
// toolchain on PATH. The module requires lwreplay: the running binary's
// own version, or the checkout it was built from. It requires
// k8s.io/client-go, api and apimachinery at the asked version.
//
//	bin, err := rebuild.Binary(ctx, "v0.36.6")
//	// run bin with the same arguments
package rebuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// Module is lwreplay's module path.
const Module = "github.com/lwreplay/lwreplay"

// OldestMinor is the oldest client-go minor version lwreplay supports
// (v0.35: controller-runtime v0.23).
const OldestMinor = 35

// SourceEnv names a checkout of lwreplay to build from, for a binary that
// records neither its module version nor where its source was.
const SourceEnv = "LWREPLAY_SOURCE"

var (
	// ErrVersion is returned for a version that is not one lwreplay can
	// build with: not a version, or older than v0.35.
	ErrVersion = errors.New("unsupported client-go version")
	// ErrNoToolchain is returned when no Go toolchain is on PATH.
	ErrNoToolchain = errors.New("no Go toolchain")
	// ErrNoSuchVersion is returned when the module proxy has no such
	// client-go (or api, apimachinery) version.
	ErrNoSuchVersion = errors.New("client-go version not available")
	// ErrSource is returned when lwreplay's own source cannot be found.
	ErrSource = errors.New("lwreplay source not found")
	// ErrBuild is returned when the build fails.
	ErrBuild = errors.New("building lwreplay failed")
)

var versionRE = regexp.MustCompile(`^v?0\.(\d+)(\.\d+)?$`)

// ParseVersion checks a client-go version as a user writes it ("v0.36.6",
// "0.36.6", or "v0.36" for its newest patch) and returns it with its "v".
func ParseVersion(v string) (string, error) {
	m := versionRE.FindStringSubmatch(v)
	if m == nil {
		return "", fmt.Errorf("%w: %q: want v0.MINOR.PATCH or v0.MINOR (e.g. v0.36.6)", ErrVersion, v)
	}
	minor, err := strconv.Atoi(m[1])
	if err != nil || minor < OldestMinor {
		return "", fmt.Errorf("%w: %q: lwreplay supports client-go v0.%d and newer (controller-runtime v0.23 and newer)", ErrVersion, v, OldestMinor)
	}
	return "v" + strings.TrimPrefix(v, "v"), nil
}

// Binary returns the path of an lwreplay command built against client-go
// version (ParseVersion's forms), building it when needed. The module and
// binary are kept under the user's cache directory, so a second call costs
// an up-to-date check. log receives one line per step (nil: none).
func Binary(ctx context.Context, version string, log func(string)) (string, error) {
	if log == nil {
		log = func(string) {}
	}
	v, err := ParseVersion(version)
	if err != nil {
		return "", err
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("%w: --client-go builds lwreplay with client-go %s and needs the go command on PATH: %w", ErrNoToolchain, v, err)
	}
	require, replace, err := self()
	if err != nil {
		return "", err
	}
	if v, err = resolve(ctx, goCmd, v); err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("%w: no cache directory for the build: %w", ErrBuild, err)
	}
	sum := sha256.Sum256([]byte(require + "\x00" + replace + "\x00" + v))
	dir := filepath.Join(cache, "lwreplay", "client-go", v+"-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("%w: %w", ErrBuild, err)
	}
	gomod := fmt.Sprintf("module lwreplay.local/clientgo\n\ngo 1.26.0\n\nrequire %s %s\n", Module, require)
	if replace != "" {
		gomod += fmt.Sprintf("\nreplace %s => %s\n", Module, strconv.Quote(replace))
	}
	if old, err := os.ReadFile(filepath.Join(dir, "go.mod")); err != nil || !strings.HasPrefix(string(old), gomod) {
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
			return "", fmt.Errorf("%w: %w", ErrBuild, err)
		}
	}
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, goCmd, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return strings.TrimSpace(out.String()), err
	}
	log(fmt.Sprintf("selecting client-go %s in %s", v, dir))
	get := []string{"get", "k8s.io/client-go@" + v, "k8s.io/api@" + v, "k8s.io/apimachinery@" + v, Module + "@" + require}
	if out, err := run(get...); err != nil {
		return "", fmt.Errorf("%w: go %s: %w\n%s", ErrBuild, strings.Join(get, " "), err, out)
	}
	got, err := run("list", "-m", "-f", "{{.Version}}", "k8s.io/client-go")
	if err != nil {
		return "", fmt.Errorf("%w: go list -m k8s.io/client-go: %w\n%s", ErrBuild, err, got)
	}
	if got != v {
		return "", fmt.Errorf("%w: %s: this lwreplay requires client-go %s or newer, and Go selects the newer", ErrVersion, v, got)
	}
	bin := filepath.Join(dir, "lwreplay")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	log(fmt.Sprintf("building lwreplay with client-go %s", got))
	if out, err := run("build", "-o", bin, Module+"/cmd/lwreplay"); err != nil {
		return "", fmt.Errorf("%w: go build with client-go %s: %w\n%s", ErrBuild, got, err, out)
	}
	return bin, nil
}

// resolve asks the module proxy (through the go command) for version of
// client-go, api and apimachinery. "v0.36" becomes its newest patch. A
// version it does not serve is an ErrNoSuchVersion.
func resolve(ctx context.Context, goCmd, version string) (string, error) {
	var resolved string
	for _, m := range []string{"k8s.io/client-go", "k8s.io/api", "k8s.io/apimachinery"} {
		cmd := exec.CommandContext(ctx, goCmd, "list", "-m", "-f", "{{.Version}}", m+"@"+version)
		cmd.Dir = os.TempDir() // outside any module: a query of the proxy
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("%w: %s@%s: %s", ErrNoSuchVersion, m, version, strings.TrimSpace(errOut.String()))
		}
		v := strings.TrimSpace(out.String())
		if resolved != "" && v != resolved {
			return "", fmt.Errorf("%w: %s: k8s.io/client-go is %s, %s is %s", ErrNoSuchVersion, version, resolved, m, v)
		}
		resolved = v
	}
	return resolved, nil
}

// self says how the temporary module requires lwreplay. It is the running
// binary's module version, or a checkout (replace). The checkout is
// $LWREPLAY_SOURCE, or the directory this file was compiled from.
func self() (require, replace string, err error) {
	if dir := os.Getenv(SourceEnv); dir != "" {
		return checkout(dir)
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Path == Module && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version, "", nil
	}
	_, file, _, ok := runtime.Caller(0)
	if ok && filepath.IsAbs(file) {
		if r, rep, err := checkout(filepath.Join(filepath.Dir(file), "..", "..")); err == nil {
			return r, rep, nil
		}
	}
	return "", "", fmt.Errorf("%w: this lwreplay records no module version and its source is not where it was built; set %s to a checkout of %s, or install a released version (go install %s/cmd/lwreplay@VERSION)", ErrSource, SourceEnv, Module, Module)
}

// checkout returns the replace of a checkout of lwreplay at dir.
func checkout(dir string) (require, replace string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s: %w", ErrSource, dir, err)
	}
	data, err := os.ReadFile(filepath.Join(abs, "go.mod"))
	if err != nil {
		return "", "", fmt.Errorf("%w: %s: %w", ErrSource, dir, err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	if strings.TrimSpace(first) != "module "+Module {
		return "", "", fmt.Errorf("%w: %s: go.mod is not module %s", ErrSource, dir, Module)
	}
	return "v0.0.0-00010101000000-000000000000", abs, nil
}
