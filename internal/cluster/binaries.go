package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// KubeVersion is the kube-apiserver version a Cluster runs.
const KubeVersion = "v1.37.2"

// EtcdVersion is the etcd version a Cluster runs.
const EtcdVersion = "v3.6.16"

// BinEnv names the environment variable that, when set, holds the directory
// of prebuilt binaries. They are kube-apiserver-<KubeVersion>,
// etcd-<EtcdVersion> and kube-controller-manager-<KubeVersion>, or their
// plain names. The build script is then not run.
const BinEnv = "LWREPLAY_CLUSTER_BIN"

// buildScript is the script's path relative to the module root.
const buildScript = "e2e/build-cluster.sh"

// binaries are the paths of the programs a Cluster runs. controllerManager
// is empty when the directory has none (StartControllerManager says so).
type binaries struct {
	apiserver, etcd, controllerManager string
}

// findBinaries returns the binaries from the BinEnv directory if set, else
// from the directory the build script prints (building them if needed).
func findBinaries(ctx context.Context) (binaries, error) {
	if dir := os.Getenv(BinEnv); dir != "" {
		return binariesIn(dir)
	}
	script, err := findBuildScript()
	if err != nil {
		return binaries{}, err
	}
	dir, err := runBuildScript(ctx, script)
	if err != nil {
		return binaries{}, err
	}
	return binariesIn(dir)
}

// binariesIn finds the programs in dir, preferring the versioned names;
// kube-controller-manager is optional.
func binariesIn(dir string) (binaries, error) {
	var b binaries
	for _, want := range []struct {
		dst      *string
		names    []string
		optional bool
	}{
		{&b.apiserver, []string{"kube-apiserver-" + KubeVersion, "kube-apiserver"}, false},
		{&b.etcd, []string{"etcd-" + EtcdVersion, "etcd"}, false},
		{&b.controllerManager, []string{"kube-controller-manager-" + KubeVersion, "kube-controller-manager"}, true},
	} {
		for _, name := range want.names {
			p := filepath.Join(dir, name)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				*want.dst = p
				break
			}
		}
		if *want.dst == "" && !want.optional {
			return binaries{}, fmt.Errorf("%w: no executable %s in %s", ErrBinaries, strings.Join(want.names, " or "), dir)
		}
	}
	return b, nil
}

// findBuildScript looks for the build script next to this source file's
// module root, then above the working directory.
func findBuildScript() (string, error) {
	var tried []string
	if _, file, _, ok := runtime.Caller(0); ok {
		p := filepath.Join(filepath.Dir(file), "..", "..", buildScript)
		if isFile(p) {
			return p, nil
		}
		tried = append(tried, p)
	}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if isFile(filepath.Join(dir, "go.mod")) {
				p := filepath.Join(dir, buildScript)
				if isFile(p) {
					return p, nil
				}
				tried = append(tried, p)
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return "", fmt.Errorf("%w: %s not found (tried %s); set %s", ErrBuild, buildScript, strings.Join(tried, ", "), BinEnv)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// runBuildScript runs the build script and returns the directory it prints
// on its last stdout line.
func runBuildScript(ctx context.Context, script string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", script)
	ownGroup(cmd)
	cmd.Env = append(os.Environ(), "KUBE_VERSION="+KubeVersion, "ETCD_VERSION="+EtcdVersion)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("%w: %s interrupted: %v", ErrStart, script, context.Cause(ctx))
		}
		return "", fmt.Errorf("%w: %s: %v\n%s", ErrBuild, script, err, tail(stderr.Bytes(), tailLines))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	dir := strings.TrimSpace(lines[len(lines)-1])
	if dir == "" {
		return "", fmt.Errorf("%w: %s printed no directory", ErrBuild, script)
	}
	return dir, nil
}
