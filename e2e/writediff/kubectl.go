package writediff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// KubectlPreferred is the kubectl binary the harness runs when it is on
// PATH; otherwise it runs plain kubectl.
const KubectlPreferred = "kubectl.1.33"

// kubectlTimeout bounds one kubectl invocation.
const kubectlTimeout = time.Minute

// reasonPattern finds the Status reason in kubectl's error output.
var reasonPattern = regexp.MustCompile(`Error from server \(([A-Za-z]+)\)`)

// FindKubectl returns the kubectl the harness runs: KubectlPreferred if
// on PATH, else kubectl.
func FindKubectl() (string, error) {
	if p, err := exec.LookPath(KubectlPreferred); err == nil {
		return p, nil
	}
	p, err := exec.LookPath("kubectl")
	if err != nil {
		return "", fmt.Errorf("writediff: neither %s nor kubectl on PATH: %w", KubectlPreferred, err)
	}
	return p, nil
}

// KubectlVersion returns `kubectl version --client` of path, first line.
func KubectlVersion(ctx context.Context, path string) (string, error) {
	out, err := exec.CommandContext(ctx, path, "version", "--client").Output()
	if err != nil {
		return "", fmt.Errorf("writediff: %s version --client: %w", path, err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line), nil
}

// runKubectl runs a Kubectl step: its exit code, Status reason and output.
func (r *runner) runKubectl(ctx context.Context, ns string, s Step, staleRV string) (Outcome, error) {
	if r.kubectl == "" {
		p, err := FindKubectl()
		if err != nil {
			return Outcome{}, err
		}
		if r.cacheDir, err = os.MkdirTemp("", "writediff-kubectl-"); err != nil {
			return Outcome{}, fmt.Errorf("writediff: kubectl cache dir: %w", err)
		}
		r.kubectl = p
	}
	args := []string{"--kubeconfig", r.kubeconfig, "--namespace", ns, "--cache-dir", r.cacheDir}
	for _, a := range s.Args {
		args = append(args, fill(a, ns, staleRV))
	}
	ctx, cancel := context.WithTimeout(ctx, kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.kubectl, args...)
	cmd.Stdin = strings.NewReader(fill(s.Stdin, ns, staleRV))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	exit := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return Outcome{}, fmt.Errorf("writediff: run kubectl %s: %w", strings.Join(s.Args, " "), err)
		}
		exit = ee.ExitCode()
	}
	o := Outcome{Exit: &exit}
	o.Message = strings.TrimSpace(strings.TrimSpace(stdout.String()) + "\n" + strings.TrimSpace(stderr.String()))
	if m := reasonPattern.FindStringSubmatch(stderr.String()); m != nil {
		o.Reason = m[1]
	}
	return o, nil
}

// close removes what the harness left on disk.
func (r *runner) close() {
	if r.cacheDir != "" {
		os.RemoveAll(r.cacheDir)
	}
}
