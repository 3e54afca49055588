package content

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/lwreplay/lwreplay/history"
)

// maxDiffs caps how many differences a store diff reports one by one.
const maxDiffs = 20

// StoreDiff compares a target's store with the wanted state. It returns
// one line per difference, sorted by key:
//
//	missing ns/a (want rv 7)
//	extra ns/b (rv 9)
//	ns/c: rv got 5, want 8
//	ns/c: content differs at rv 8
//
// Content compares the objects' JSON decoded into any, so key order and
// spacing do not matter. Past maxDiffs it ends with a count of the rest.
func StoreDiff(store map[string]*history.Object, want []*history.Object) []string {
	wantBy := make(map[string]*history.Object, len(want))
	keys := make([]string, 0, len(want)+len(store))
	for _, w := range want {
		wantBy[w.Key()] = w
		keys = append(keys, w.Key())
	}
	for k := range store {
		if _, ok := wantBy[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		w, wok := wantBy[k]
		g, gok := store[k]
		switch {
		case !gok:
			out = append(out, fmt.Sprintf("missing %s (want rv %s)", k, w.ResourceVersion))
		case !wok:
			out = append(out, fmt.Sprintf("extra %s (rv %s)", k, rvOf(g)))
		case g == nil:
			out = append(out, fmt.Sprintf("%s: nil object, want rv %s", k, w.ResourceVersion))
		case g.ResourceVersion != w.ResourceVersion:
			out = append(out, fmt.Sprintf("%s: rv got %s, want %s", k, g.ResourceVersion, w.ResourceVersion))
		case g != w && !SameContent(g.Raw, w):
			out = append(out, fmt.Sprintf("%s: content differs at rv %s", k, w.ResourceVersion))
		}
	}
	if len(out) > maxDiffs {
		n := len(out) - maxDiffs
		out = append(out[:maxDiffs], fmt.Sprintf("and %d more", n))
	}
	return out
}

func rvOf(o *history.Object) string {
	if o == nil {
		return "none: nil object"
	}
	return o.ResourceVersion
}

// sameJSON reports whether a and b decode to equal values; JSON that does
// not decode is equal only byte for byte.
func sameJSON(a, b []byte) bool {
	var va, vb any
	ea, eb := json.Unmarshal(a, &va), json.Unmarshal(b, &vb)
	if ea != nil || eb != nil {
		return ea != nil && eb != nil && string(a) == string(b)
	}
	return reflect.DeepEqual(va, vb)
}
