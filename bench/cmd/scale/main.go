// Command scale runs bench/internal/scale's measurements on the cassettes
// named NAME=PATH, each in a child process of its own. It prints the
// markdown table. --raw saves every child's figures as JSON.
//
//	scale --lwreplay BIN [--raw FILE] [--recorder-events N] [--rounds N] [--measures M,...] 10k=PATH 100k=PATH
//
// bench/scale.sh builds it and lwreplay, makes the cassettes and runs it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lwreplay/lwreplay/bench/internal/scale"
)

var errUsage = errors.New("usage")

func main() {
	if code, ok := scale.ChildMain(); ok {
		os.Exit(code)
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := pflag.NewFlagSet("scale", pflag.ContinueOnError)
	lwreplay := fs.String("lwreplay", "", "the lwreplay binary the serve measurements start (required)")
	raw := fs.String("raw", "", "write every measurement's figures here as JSON")
	events := fs.Int("recorder-events", 100000, "events of the watch the recorder measurement consumes")
	rounds := fs.Int("rounds", 3, "rounds of the recorder measurement and of decoding the initial LIST")
	only := fs.StringSlice("measures", nil, "make only these measurements (default: every one): "+strings.Join(measureNames(), ","))
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *lwreplay == "" || fs.NArg() == 0 {
		return fmt.Errorf("%w: scale --lwreplay BIN NAME=CASSETTE...", errUsage)
	}
	var cassettes []scale.Cassette
	for _, a := range fs.Args() {
		name, path, ok := strings.Cut(a, "=")
		if !ok || name == "" || path == "" {
			return fmt.Errorf("%w: %q: want NAME=CASSETTE", errUsage, a)
		}
		cassettes = append(cassettes, scale.Cassette{Name: name, Path: path})
	}
	var measures []scale.Measure
	for _, name := range *only {
		m, err := scale.ParseMeasure(name)
		if err != nil {
			return fmt.Errorf("%w: --measures: %v", errUsage, err)
		}
		measures = append(measures, m)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	results, err := scale.Run(context.Background(), cassettes, scale.Options{
		Self: []string{self}, Lwreplay: *lwreplay, RecorderEvents: *events, Rounds: *rounds, Log: os.Stderr,
		Measures: measures,
	})
	if *raw != "" {
		b, jerr := json.MarshalIndent(results, "", "  ")
		if jerr == nil {
			jerr = os.WriteFile(*raw, append(b, '\n'), 0o644)
		}
		if err == nil {
			err = jerr
		}
	}
	if err != nil {
		return err
	}
	return scale.Table(os.Stdout, scale.Rows(results, scale.DefaultTargets))
}

// measureNames returns the names --measures takes.
func measureNames() []string {
	var names []string
	for _, m := range scale.Measures {
		names = append(names, m.String())
	}
	return names
}
