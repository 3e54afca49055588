package synth

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// GenerateOptions shape a generated history.
type GenerateOptions struct {
	// Objects is the number of objects in the initial state, given to the
	// kinds in turn.
	Objects int
	// Events is the number of changes (watch events) after the initial state.
	Events int
	// Seed seeds the generator: the same options give the same cassette,
	// byte for byte.
	Seed int64
	// Kinds lists the resources to generate, "configmaps" and "pods";
	// nil means both.
	Kinds []string
	// Namespaces is the number of namespaces objects spread over (0: 3).
	Namespaces int
	// PageSize splits each initial LIST into pages (0: one page).
	PageSize int
	// BookmarkEvery puts a BOOKMARK after every n events (0: only the last).
	BookmarkEvery int
	// MaxMemory bounds, in bytes, the memory that making the cassette is
	// estimated to take (see EstimateSize: Size.MemoryBytes for
	// WriteCassette, Size.InMemoryBytes for Generate); larger options are
	// refused at once with ErrTooLarge (0: DefaultMaxMemory).
	MaxMemory int64
}

// DefaultMaxMemory is the memory bound of GenerateOptions.MaxMemory 0: 4
// GiB. WriteCassette fits about 400,000 objects of pods and configmaps
// in it (LIST pages of 500), or 10,000 objects and 3,000,000 events.
// Generate fits about 200,000 objects or events.
const DefaultMaxMemory = 4 << 30

var (
	// ErrOptions is wrapped by errors about GenerateOptions.
	ErrOptions = errors.New("bad generate options")
	// ErrTooLarge is wrapped by the error of options whose cassette would
	// take more memory to make than GenerateOptions.MaxMemory.
	ErrTooLarge = errors.New("synthetic cassette too large")
)

// kinds are the resources Generate makes.
var kinds = []string{"configmaps", "pods"}

// Validate checks the options as Generate does before it generates
// anything. Counts must not be negative, and kinds must be known. The
// estimated size must be within MaxMemory (ErrTooLarge). It is
// Size.InMemoryBytes, as Generate holds the whole cassette. The error
// names the option at fault.
func (o GenerateOptions) Validate() error { return o.validate(false) }

// validate checks o for Generate, or, streaming, for WriteCassette, whose
// memory is Size.MemoryBytes.
func (o GenerateOptions) validate(streaming bool) error {
	for _, c := range []struct {
		name string
		n    int
	}{{"objects", o.Objects}, {"events", o.Events}, {"namespaces", o.Namespaces}, {"page size", o.PageSize}, {"bookmark every", o.BookmarkEvery}} {
		if c.n < 0 {
			return fmt.Errorf("%w: %s %d: want 0 or more", ErrOptions, c.name, c.n)
		}
	}
	if o.MaxMemory < 0 {
		return fmt.Errorf("%w: max memory %d: want 0 (the default) or more", ErrOptions, o.MaxMemory)
	}
	if o.Kinds != nil && len(o.Kinds) == 0 {
		return fmt.Errorf("%w: no kinds (want %s)", ErrOptions, strings.Join(kinds, " or "))
	}
	for _, k := range o.Kinds {
		if !slices.Contains(kinds, k) {
			return fmt.Errorf("%w: kind %q: want %s", ErrOptions, k, strings.Join(kinds, " or "))
		}
	}
	bound := o.MaxMemory
	if bound == 0 {
		bound = DefaultMaxMemory
	}
	e := EstimateSize(o)
	need, doing := e.InMemoryBytes, "generating and saving it in memory"
	if streaming {
		need, doing = e.MemoryBytes, "writing it"
	}
	if need > bound {
		return fmt.Errorf("%w: %d objects and %d events make a cassette of about %s; %s would take about %s of memory, over the bound of %s",
			ErrTooLarge, o.Objects, o.Events, bytesText(e.FileBytes), doing, bytesText(need), bytesText(bound))
	}
	return nil
}
