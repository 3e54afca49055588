package faults

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"
)

// PlanVersion is the plan file format version this package reads and
// writes.
const PlanVersion = 1

// planFile is a plan file's YAML shape.
type planFile struct {
	Version any   `yaml:"version"`
	Faults  []any `yaml:"faults"`
}

// ParsePlan reads a plan file: YAML with the format version and a list of
// ParseFault strings, applied in order,
//
//	version: 1
//	faults:
//	  - close-watch:after=5
//	  - expire-continue:page=2
//	  - delay:ms=2500,at=14
//
// The version is checked (a missing or other version is refused), unknown
// keys are refused, and an error in an entry names its index ("faults[1]").
// A file without faults is the empty plan.
func ParsePlan(data []byte) (p Plan, err error) {
	defer func() {
		if r := recover(); r != nil { // the YAML decoder must not crash the caller
			p, err = Plan{}, fmt.Errorf("%w: YAML decoder failed: %v", ErrPlanFile, r)
		}
	}()
	if len(bytes.TrimSpace(data)) == 0 {
		return Plan{}, fmt.Errorf("%w: empty file, no version (want \"version: %d\")", ErrPlanFile, PlanVersion)
	}
	var f planFile
	if err := yaml.Load(data, &f, yaml.WithKnownFields()); err != nil {
		return Plan{}, fmt.Errorf("%w: %v", ErrPlanFile, err)
	}
	switch v := f.Version.(type) {
	case nil:
		return Plan{}, fmt.Errorf("%w: no version (want \"version: %d\")", ErrPlanFile, PlanVersion)
	case int:
		if v != PlanVersion {
			return Plan{}, fmt.Errorf("%w: version %d is not supported (this lwreplay reads version %d)", ErrPlanFile, v, PlanVersion)
		}
	default:
		return Plan{}, fmt.Errorf("%w: version %v is not an integer (want \"version: %d\")", ErrPlanFile, v, PlanVersion)
	}
	for i, e := range f.Faults {
		s, ok := e.(string)
		if !ok {
			return Plan{}, fmt.Errorf("%w: faults[%d]: got %s, want a string such as \"close-watch:after=5\" (no space after ':')", ErrPlanFile, i, yamlKind(e))
		}
		d, err := ParseFault(s)
		if err != nil {
			return Plan{}, fmt.Errorf("%w: faults[%d]: %w", ErrPlanFile, i, err)
		}
		p.Decisions = append(p.Decisions, d)
	}
	return p, nil
}

// yamlKind names a decoded YAML value's kind for an error message.
func yamlKind(v any) string {
	switch v.(type) {
	case nil:
		return "an empty entry"
	case map[string]any, map[any]any:
		return "a mapping"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("%T %v", v, v)
}

// FormatPlan writes p as a plan file that ParsePlan reads back, one
// decision per line in its text form.
func FormatPlan(p Plan) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "version: %d\n", PlanVersion)
	if len(p.Decisions) == 0 {
		b.WriteString("faults: []\n")
		return []byte(b.String())
	}
	b.WriteString("faults:\n")
	for _, d := range p.Decisions {
		fmt.Fprintf(&b, "  - %s\n", d)
	}
	return []byte(b.String())
}
