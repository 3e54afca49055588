package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/lwreplay/lwreplay/synth"
)

func runSynth(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("synth", stderr)
	var o synth.GenerateOptions
	fs.IntVar(&o.Objects, "objects", 50, "objects in the initial state")
	fs.IntVar(&o.Events, "events", 100, "watch events after the initial state")
	fs.Int64Var(&o.Seed, "seed", 1, "random seed: the same seed writes the same bytes")
	fs.StringSliceVar(&o.Kinds, "kinds", []string{"configmaps", "pods"}, "resources to generate: configmaps, pods")
	fs.IntVar(&o.Namespaces, "namespaces", 3, "namespaces the objects spread over (at least 1)")
	fs.IntVar(&o.PageSize, "page-size", 0, "split the initial LIST into pages of this many items (0: one page)")
	fs.IntVar(&o.BookmarkEvery, "bookmark-every", 10, "a BOOKMARK after every N watch events (0: only the last)")
	maxMemory := fs.String("max-memory", "4Gi", "refuse a cassette whose writing is estimated to take more memory than this (bytes, or a quantity such as 4Gi)")
	out := fs.StringP("output", "o", "", "cassette file to write (must end in .yaml)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %v", errUsage, fs.Args())
	}
	if err := checkOutput(*out); err != nil {
		return err
	}
	for _, name := range []string{"objects", "events", "page-size", "bookmark-every"} {
		if n, _ := fs.GetInt(name); n < 0 {
			return fmt.Errorf("%w: --%s: got %d, want 0 or more", errUsage, name, n)
		}
	}
	if o.Namespaces < 1 {
		return fmt.Errorf("%w: --namespaces: got %d, want at least 1", errUsage, o.Namespaces)
	}
	var err error
	if o.MaxMemory, err = positiveQuantity("max-memory", *maxMemory); err != nil {
		return err
	}
	n, err := synth.WriteCassette(*out, o)
	switch {
	case errors.Is(err, synth.ErrTooLarge):
		return fmt.Errorf("%w: %v (raise the bound with --max-memory)", errUsage, err)
	case errors.Is(err, synth.ErrOptions):
		return fmt.Errorf("%w: --kinds: %v", errUsage, err)
	case err != nil:
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d interactions\n", *out, n)
	return nil
}
