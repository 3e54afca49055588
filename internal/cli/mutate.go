package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/mutate"
	"github.com/lwreplay/lwreplay/recorder/capture"
)

func runMutate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("mutate", stderr)
	faultFlags := fs.StringArray("fault", nil, "a fault to apply, e.g. close-watch:after=5 (repeatable)")
	planFile := fs.String("plan", "", "a fault plan file")
	out := fs.StringP("output", "o", "", "reproducer cassette to write (must end in .yaml)")
	watchList := fs.String("watchlist", "auto", "how the reference client starts: auto, on or off")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up when the reference client has not settled by then")
	clientGo := addClientGoFlag(fs)
	salvage := addSalvageFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkOutput(*out); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: name at least one cassette file or directory", errUsage)
	}
	if err := notAnInput(*out, fs.Args()); err != nil {
		return err
	}
	if err := nonEmpty(fs, "plan", "client-go"); err != nil {
		return err
	}
	mode, err := capture.ParseWatchListMode(*watchList)
	if err != nil {
		return fmt.Errorf("%w: --watchlist: %v", errUsage, err)
	}
	if *timeout <= 0 {
		return fmt.Errorf("%w: --timeout: got %v, want a positive duration", errUsage, *timeout)
	}
	plan, err := loadPlan(*faultFlags, *planFile)
	if err != nil {
		return err
	}
	if err := mutate.CheckPlan(plan); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if ran, err := withClientGo(ctx, *clientGo, "mutate", args, stdout, stderr); ran {
		return err
	}
	files, _, err := loadOne("mutate", fs.Args(), *salvage, stderr)
	if err != nil {
		return err
	}
	res, err := mutate.Run(ctx, files, *out, mutate.Options{Plan: plan, WatchList: mode, Timeout: *timeout})
	if len(res.Fired) > 0 {
		fmt.Fprintf(stdout, "faults fired: %s\n", faults.Story(res.Fired))
	} else if len(plan.Decisions) > 0 {
		fmt.Fprintf(stdout, "no fault of the plan fired\n")
	}
	var storm *mutate.StormError
	if errors.As(err, &storm) {
		hint := ""
		if storm.WatchListCut() && mode != capture.WatchListOff {
			hint = " (client-go restarts a WatchList stream that ends before its initial-events-end bookmark at once, " +
				"with no backoff: kubernetes/kubernetes#140890; --watchlist off has the reference client LIST then WATCH)"
		}
		return fmt.Errorf("%w; run stopped, no reproducer written%s", err, hint)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %v: %d interactions, replayed verbatim by lwreplay serve\n", res.Files, res.Interactions)
	return nil
}
