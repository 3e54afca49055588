package recorder

import (
	"fmt"
	"strings"

	"k8s.io/client-go/util/jsonpath"
)

// fieldPath is a parsed WithRedactFields path: field names and "every
// element" steps, walked from the object's root.
type fieldPath struct {
	text  string
	steps []step
}

// step is one path step: a field name, or (all) every element of an array
// or every value of an object.
type step struct {
	name string
	all  bool
}

// protected are the fields a replayed object cannot do without: a path that
// reaches one of them, or a field holding one, is refused.
var protected = [][]string{
	{"kind"}, {"apiVersion"},
	{"metadata", "name"}, {"metadata", "namespace"}, {"metadata", "uid"}, {"metadata", "resourceVersion"},
}

// parseFieldPath parses a path with client-go's JSONPath parser, and keeps
// the subset the recorder can write through. That is field names (".spec.x")
// and every element ("[*]" or ".*"). Escape dots inside a name as kubectl
// does: ".metadata.annotations.a\.b/c". Braces are optional. Indexes,
// slices, filters, unions and recursive descent are refused.
func parseFieldPath(text string) (fieldPath, error) {
	src := strings.TrimSpace(text)
	if !strings.HasPrefix(src, "{") {
		src = "{" + src + "}"
	}
	p, err := jsonpath.Parse("redact", src)
	if err != nil {
		return fieldPath{}, fmt.Errorf("%w: redact field %q: %v", ErrOptions, text, err)
	}
	if len(p.Root.Nodes) != 1 {
		return fieldPath{}, fmt.Errorf("%w: redact field %q: want one path", ErrOptions, text)
	}
	list, ok := p.Root.Nodes[0].(*jsonpath.ListNode)
	if !ok {
		return fieldPath{}, fmt.Errorf("%w: redact field %q: want a path such as .spec.containers[*].env", ErrOptions, text)
	}
	fp := fieldPath{text: text}
	for _, n := range list.Nodes {
		switch n := n.(type) {
		case *jsonpath.FieldNode:
			if n.Value == "" {
				continue // the root, "{.}"
			}
			fp.steps = append(fp.steps, step{name: n.Value})
		case *jsonpath.WildcardNode:
			fp.steps = append(fp.steps, step{all: true})
		case *jsonpath.ArrayNode:
			if n.Params[0].Known || n.Params[1].Known || n.Params[2].Known {
				return fieldPath{}, fmt.Errorf("%w: redact field %q: only [*] is supported, not indexes or slices", ErrOptions, text)
			}
			fp.steps = append(fp.steps, step{all: true})
		default:
			return fieldPath{}, fmt.Errorf("%w: redact field %q: %s is not supported (field names, [*] and .* are)", ErrOptions, text, n.Type())
		}
	}
	if len(fp.steps) == 0 {
		return fieldPath{}, fmt.Errorf("%w: redact field %q: the whole object cannot be redacted", ErrOptions, text)
	}
	for _, pr := range protected {
		if fp.reaches(pr) {
			return fieldPath{}, fmt.Errorf("%w: redact field %q: reaches .%s, which replay needs", ErrOptions, text, strings.Join(pr, "."))
		}
	}
	return fp, nil
}

// reaches reports whether the path leads to the field at names or to a
// field holding it.
func (fp fieldPath) reaches(names []string) bool {
	if len(fp.steps) > len(names) {
		return false
	}
	for k, s := range fp.steps {
		if !s.all && s.name != names[k] {
			return false
		}
	}
	return true
}

// redact replaces what the path leads to in obj: a string becomes
// "REDACTED"; in an object or array, every string inside does (keys are
// kept). Numbers, booleans and nulls are kept so the object still decodes
// into its type. A path that leads nowhere changes nothing.
func (fp fieldPath) redact(obj map[string]any) { walk(obj, fp.steps) }

func walk(v any, steps []step) any {
	if len(steps) == 0 {
		return scrub(v)
	}
	s, rest := steps[0], steps[1:]
	switch t := v.(type) {
	case map[string]any:
		if s.all {
			for k := range t {
				t[k] = walk(t[k], rest)
			}
		} else if child, ok := t[s.name]; ok {
			t[s.name] = walk(child, rest)
		}
	case []any:
		if s.all {
			for k := range t {
				t[k] = walk(t[k], rest)
			}
		}
	}
	return v
}

func scrub(v any) any {
	switch t := v.(type) {
	case string:
		return Redacted
	case map[string]any:
		for k := range t {
			t[k] = scrub(t[k])
		}
	case []any:
		for k := range t {
			t[k] = scrub(t[k])
		}
	}
	return v
}
