package cli

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// addSalvageFlag adds --salvage to a verb that loads cassettes.
func addSalvageFlag(fs *pflag.FlagSet) *bool {
	return fs.Bool("salvage", false, "load a cassette file cut short without its cut last interaction (said on stderr); by default such a file is an error")
}

// loadRecordings loads the cassette files and directories args name as
// recordings, and says on stderr what --salvage dropped. (cassette.Group:
// files are one recording only as the parts a recorder rotated it into.)
// Large watch streams stay in their files until the history is built
// (cassette.WithLazyBodies).
func loadRecordings(verb string, args []string, salvage bool, stderr io.Writer) ([]cassette.Recording, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("%w: name at least one cassette file or directory", errUsage)
	}
	recs, err := cassette.LoadRecordings(args, cassette.WithSalvage(salvage), cassette.WithLazyBodies(true))
	if err != nil {
		if _, serr := cassette.LoadRecordings(args, cassette.WithSalvage(true)); !salvage && serr == nil {
			return nil, fmt.Errorf("%w; --salvage loads its complete interactions", err)
		}
		return nil, err
	}
	for _, r := range recs {
		for _, f := range r.Files {
			if f.Damage != nil {
				fmt.Fprintf(stderr, "lwreplay %s: warning: %s: salvaged: %s\n", verb, f.Path, f.Damage)
			}
		}
	}
	return recs, nil
}

// loadOne loads the one recording a verb replays and builds its history;
// files that hold several recordings are a usage error naming them.
func loadOne(verb string, args []string, salvage bool, stderr io.Writer) ([]*cassette.File, *history.History, error) {
	recs, err := loadRecordings(verb, args, salvage, stderr)
	if err != nil {
		return nil, nil, err
	}
	if len(recs) > 1 {
		return nil, nil, fmt.Errorf("%w: %s replays one recording, and the files given hold %d: %s; %s (name one; lwreplay inspect describes each)",
			errUsage, verb, len(recs), cassette.DescribeAll(recs), cassette.RuleText)
	}
	files := recs[0].Files
	h, err := history.Build(files...)
	if err != nil {
		return nil, nil, err
	}
	return files, h, nil
}
