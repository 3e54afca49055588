package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lwreplay/lwreplay/history"
)

// checkServeFlags checks serve's flags that need no cassette: none given
// empty, and --addr a host:port.
func checkServeFlags(fs *pflag.FlagSet, addr string) error {
	if err := nonEmpty(fs, "addr", "write-kubeconfig", "pace", "compaction", "plan"); err != nil {
		return err
	}
	return checkAddr(addr)
}

// verbatimIgnores are the serve flags that shape a modelled replay; a
// reproducer, replayed as recorded, takes none of them.
var verbatimIgnores = []string{"fault", "plan", "pace", "compaction", "expect-own-writes", "actors"}

// checkVerbatimFlags refuses the flags a reproducer cannot take.
func checkVerbatimFlags(fs *pflag.FlagSet) error {
	var given []string
	for _, name := range verbatimIgnores {
		if fs.Changed(name) {
			given = append(given, "--"+name)
		}
	}
	if len(given) > 0 {
		return fmt.Errorf("%w: a reproducer cassette replays as recorded; it takes no %s (got %s)",
			errUsage, "--"+strings.Join(verbatimIgnores, ", --"), strings.Join(given, ", "))
	}
	return nil
}

// checkCompaction checks --compaction against the history: a
// resourceVersion it can place, and not after every resource's last one
// (every request would be answered 410 Expired).
func checkCompaction(h *history.History, rv string) error {
	var spans []string
	newest := ""
	for _, l := range h.Logs {
		spans = append(spans, fmt.Sprintf("%s %s..%s", l.Resource, l.StartRV, l.LastRV()))
		if newest == "" || h.Order().Less(newest, l.LastRV()) {
			newest = l.LastRV()
		}
	}
	if !h.Order().Known(rv) {
		return fmt.Errorf("%w: --compaction %q: not a resourceVersion of the history (%s)", errUsage, rv, strings.Join(spans, ", "))
	}
	if newest != "" && h.Order().Less(newest, rv) {
		return fmt.Errorf("%w: --compaction %q: after the history's newest resourceVersion %s, so every request would be answered 410 Expired (%s)",
			errUsage, rv, newest, strings.Join(spans, ", "))
	}
	return nil
}
