package main

import (
	"context"
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
	fs.IntVar(&o.Namespaces, "namespaces", 3, "namespaces the objects spread over")
	fs.IntVar(&o.PageSize, "page-size", 0, "split the initial LIST into pages of this many items (0: one page)")
	fs.IntVar(&o.BookmarkEvery, "bookmark-every", 10, "a BOOKMARK after every N watch events (0: only the last)")
	out := fs.StringP("output", "o", "", "cassette file to write (must end in .yaml)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("%w: -o FILE is required", errUsage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %v", errUsage, fs.Args())
	}
	if o.Objects < 0 || o.Events < 0 {
		return fmt.Errorf("%w: --objects and --events must not be negative", errUsage)
	}
	f, err := synth.Generate(o)
	if err != nil {
		return err
	}
	if err := f.Save(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d interactions\n", *out, len(f.Interactions))
	return nil
}
