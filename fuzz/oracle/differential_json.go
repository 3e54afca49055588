package oracle

import (
	"encoding/json"
	"strconv"
	"sync"
)

// jsonDiffs returns the fields that differ between a and b, JSON objects,
// in no set order (its callers sort). JSON that does not decode differs
// as a whole ("" path rendered as "(object)").
func jsonDiffs(a, b []byte) []fieldDiff {
	va, err := refValues.decode(a)
	var vb any
	if err != nil || json.Unmarshal(b, &vb) != nil {
		if string(a) == string(b) {
			return nil
		}
		return []fieldDiff{{path: "(object)", ref: shorten(string(a)), got: shorten(string(b))}}
	}
	var d differ
	d.value(va, vb, true, true)
	return d.out
}

// refValues holds reference objects decoded (jsonDiffs' a): a reference's
// end state is compared with the end state of every run.
var refValues = &jsonMemo{maxBytes: 4 << 20}

// jsonMemo holds decoded JSON documents by their bytes, up to maxBytes of
// them; then it starts afresh. Its values are shared: read, never changed.
type jsonMemo struct {
	mu       sync.Mutex
	m        map[string]any
	size     int
	maxBytes int
}

// decode returns b decoded, as json.Unmarshal into an any does.
func (c *jsonMemo) decode(b []byte) (any, error) {
	c.mu.Lock()
	v, ok := c.m[string(b)]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	if len(b) > c.maxBytes {
		return v, nil // too big to hold: what is held stays
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.size+len(b) > c.maxBytes {
		c.m, c.size = map[string]any{}, 0
	}
	c.m[string(b)] = v
	c.size += len(b)
	return v, nil
}

// differ walks two decoded JSON values side by side. It holds the path to
// where it is as segments and makes the path's string only for a
// difference: most fields are equal.
type differ struct {
	segs []pathSeg
	out  []fieldDiff
}

// pathSeg is a map key, or a list index when isIndex.
type pathSeg struct {
	key     string
	index   int
	isIndex bool
}

// path is the path to where d is, as joinKey and list indices make it.
func (d *differ) path() string {
	p := ""
	for _, s := range d.segs {
		if s.isIndex {
			p += "[" + strconv.Itoa(s.index) + "]"
		} else {
			p = joinKey(p, s.key)
		}
	}
	return p
}

// value appends the differences of a and b where d is; aok and bok say
// whether each side has the field at all. A map present on one side only
// is compared field by field with nothing, so masks below it still hold.
func (d *differ) value(a, b any, aok, bok bool) {
	if aok && bok && sameScalar(a, b) {
		return
	}
	ma, aIsMap := a.(map[string]any)
	mb, bIsMap := b.(map[string]any)
	if (aIsMap || !aok) && (bIsMap || !bok) && (aok || bok) {
		for k, va := range ma {
			vb, inb := mb[k]
			d.field(k, va, vb, true, inb)
		}
		for k, vb := range mb {
			if _, ina := ma[k]; !ina {
				d.field(k, nil, vb, false, true)
			}
		}
		return
	}
	la, aIsList := a.([]any)
	lb, bIsList := b.([]any)
	if aIsList && bIsList && aok && bok {
		for i := range max(len(la), len(lb)) {
			var va, vb any
			if i < len(la) {
				va = la[i]
			}
			if i < len(lb) {
				vb = lb[i]
			}
			d.segs = append(d.segs, pathSeg{index: i, isIndex: true})
			d.value(va, vb, i < len(la), i < len(lb))
			d.segs = d.segs[:len(d.segs)-1]
		}
		return
	}
	ja, jb := render(a, aok), render(b, bok)
	if ja != jb && !(aok && bok && bothTimestamps(a, b)) {
		d.out = append(d.out, fieldDiff{path: d.path(), ref: shorten(ja), got: shorten(jb)})
	}
}

// field compares the values of map key k.
func (d *differ) field(k string, a, b any, aok, bok bool) {
	d.segs = append(d.segs, pathSeg{key: k})
	d.value(a, b, aok, bok)
	d.segs = d.segs[:len(d.segs)-1]
}

// sameScalar reports whether a and b are one JSON string, number, boolean
// or null: they render alike, so they do not differ.
func sameScalar(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}
