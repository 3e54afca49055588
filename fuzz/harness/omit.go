package harness

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/lwreplay/lwreplay/fuzz/internal/content"
	"github.com/lwreplay/lwreplay/history"
)

// A target whose store holds less of each object than was served, by
// design, names the fields it leaves out (Target.StoreOmits). An example
// is an informer whose transform strips metadata.managedFields. Its stored
// objects are compared with the truth's objects without those fields, and
// must lack them themselves. So a transform that did not run, or ran on
// some objects only, leaves a stored object that differs. Every other
// field is compared as for any target. A target that names none is
// compared whole.

// omission is the fields a comparison leaves out, as a tree of object
// keys. A key whose subtree is nil is left out whole. One with a subtree
// is compared with the fields of its subtree left out. A nil omission
// leaves out nothing.
type omission map[string]omission

// omitting returns the omission of paths, each a dotted path of object
// keys ("metadata.managedFields"); nil when there are none. A path below
// one left out whole adds nothing.
func omitting(paths []string) omission {
	if len(paths) == 0 {
		return nil
	}
	root := omission{}
	for _, p := range paths {
		node := root
		keys := strings.Split(p, ".")
		for i, k := range keys {
			sub, seen := node[k]
			if seen && sub == nil {
				break // left out whole already
			}
			if i == len(keys)-1 {
				node[k] = nil
				break
			}
			if sub == nil {
				sub = omission{}
				node[k] = sub
			}
			node = sub
		}
	}
	return root
}

// sameView compares a stored value got with a truth's value want, the
// fields of om left out of want and absent from got. Where om names keys
// of a value that is no object, the value is compared whole.
func sameView(got, want any, om omission) bool {
	if om == nil {
		return sameValue(got, want)
	}
	g, gok := got.(map[string]any)
	w, wok := want.(map[string]any)
	if !gok || !wok {
		return sameValue(got, want)
	}
	return sameFields(g, w, om, false)
}

// sameFields compares the fields of a stored object got with a truth's
// want. Those of om are left out of want and must be absent from got.
// typeMeta says got's kind and apiVersion are aside: an object's top
// level (a history object has none).
func sameFields(got, want map[string]any, om omission, typeMeta bool) bool {
	n := 0
	for k, v := range got {
		if typeMeta && (k == "kind" || k == "apiVersion") {
			continue
		}
		sub, named := om[k]
		if named && sub == nil {
			return false // left out, yet stored
		}
		n++
		w, ok := want[k]
		if !ok || !sameView(v, w, sub) {
			return false
		}
	}
	left := 0
	for k, sub := range om {
		if _, ok := want[k]; ok && sub == nil {
			left++
		}
	}
	return n == len(want)-left
}

// sameStored reports whether a stored object that sameAsWanted could not
// match holds what want holds, the fields of om left out. obj is that
// object, and raw its JSON without kind and apiVersion. A typed object is
// compared as its type shows want (sameTyped). Any other object is
// compared with want's content.
func sameStored(obj any, raw []byte, want *history.Object, om omission) bool {
	if om == nil {
		return sameTyped(obj, raw, want) || content.SameContent(raw, want)
	}
	var got any
	if json.Unmarshal(raw, &got) != nil {
		return false
	}
	if b := typedEncoding(obj, want); len(b) > 0 {
		var w any
		if json.Unmarshal(b, &w) == nil && sameView(got, w, om) {
			return true
		}
	}
	return sameView(got, decodedOf(want), om)
}

// heldIn returns the dotted paths of om's fields that raw, a stored
// object's JSON, holds, sorted: fields its store was to leave out.
func (om omission) heldIn(raw []byte) []string {
	if om == nil {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	out := om.held(v, "")
	sort.Strings(out)
	return out
}

// held returns the paths, below prefix, of om's fields v holds.
func (om omission) held(v any, prefix string) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	for k, sub := range om {
		w, ok := m[k]
		switch {
		case !ok:
		case sub == nil:
			out = append(out, prefix+k)
		default:
			out = append(out, sub.held(w, prefix+k+".")...)
		}
	}
	return out
}
