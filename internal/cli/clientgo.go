package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/spf13/pflag"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/internal/rebuild"
)

// exitCode is an error that only sets the exit code: a child lwreplay's,
// which has said what went wrong itself.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// addClientGoFlag adds --client-go to a verb's flags.
func addClientGoFlag(fs *pflag.FlagSet) *string {
	return fs.String("client-go", "", "run with this client-go version (v0.35.x and newer) instead of the embedded "+harness.ClientGoVersion()+": lwreplay is rebuilt with it by the go command on PATH (cached under the user cache directory)")
}

// withClientGo runs the verb's command line again in an lwreplay built
// with client-go version, when that is not the embedded one. ran says
// whether it did. The verb then returns err and does nothing else.
func withClientGo(ctx context.Context, version, verb string, args []string, stdout, stderr io.Writer) (ran bool, err error) {
	if version == "" {
		return false, nil
	}
	v, err := rebuild.ParseVersion(version)
	if err != nil {
		return true, fmt.Errorf("%w: --client-go: %w", errUsage, err)
	}
	if v == harness.ClientGoVersion() {
		return false, nil
	}
	bin, err := rebuild.Binary(ctx, v, func(line string) { fmt.Fprintf(stderr, "lwreplay %s: %s\n", verb, line) })
	if err != nil {
		if errors.Is(err, rebuild.ErrVersion) {
			return true, fmt.Errorf("%w: --client-go: %w", errUsage, err)
		}
		return true, fmt.Errorf("--client-go: %w", err)
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{verb}, withoutFlag(args, "client-go")...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	// An interrupt reaches the child as one, so that it writes its
	// reports and summary as it would alone.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return true, exitCode(exit.ExitCode())
	default:
		return true, fmt.Errorf("--client-go: running %s: %w", bin, err)
	}
}

// withoutFlag returns args without the long flag name and its value
// ("--name V" or "--name=V"), up to a "--" that ends the flags.
func withoutFlag(args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "--"+name:
			i++ // and its value
		case len(a) > len(name)+3 && a[:len(name)+3] == "--"+name+"=":
		default:
			out = append(out, a)
		}
	}
	return out
}
