package writes

import (
	"reflect"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/lwreplay/lwreplay/history"
)

// RawState is a State that stores its objects as JSON. Raw returns the
// JSON Get decodes. A non-apply write to such a State reuses the field
// manager's answer to the same request on the same stored object
// (trackMemo): a fuzzing campaign makes the same writes run after run.
type RawState interface {
	State
	Raw(key string) ([]byte, bool)
}

// trackKey is what decides the object a non-apply write hands the field
// manager, and so its answer: the request, all of it but the delete and
// list options no such write reads, and the stored object's JSON (hasOld
// false: none).
type trackKey struct {
	resource                              history.Resource
	builtin, status, graceful             bool
	defaulter                             any
	verb                                  Verb
	namespace, name, subresource          string
	contentType, fieldManager, validation string
	userAgent                             string
	patchType                             types.PatchType
	dryRun, force, hasOld                 bool
	body, old                             string
}

// trackKeyOf is the trackKey of req on the object stored under key in
// st ("": none, a create). It is nil, no reuse, when st is no RawState or
// req's kind has a defaulter that is no comparable value.
func trackKeyOf(st State, req Request, key string) *trackKey {
	rs, ok := st.(RawState)
	if !ok {
		return nil
	}
	if d := req.Kind.Defaulter; d != nil && !reflect.TypeOf(d).Comparable() {
		return nil
	}
	k := &trackKey{resource: req.Kind.Resource, builtin: req.Kind.Builtin, status: req.Kind.Status, graceful: req.Kind.Graceful,
		defaulter: req.Kind.Defaulter, verb: req.Verb, namespace: req.Namespace, name: req.Name, subresource: req.Subresource,
		contentType: req.ContentType, fieldManager: req.FieldManager, validation: req.FieldValidation, userAgent: req.UserAgent,
		patchType: req.PatchType, dryRun: req.DryRun, force: req.Force, body: string(req.Body)}
	if key != "" {
		if raw, found := rs.Raw(key); found {
			k.hasOld, k.old = true, string(raw)
		}
	}
	return k
}

// tracks holds the field manager's answers of every replay in the
// process.
var tracks = &trackMemo{maxBytes: 8 << 20}

// trackMemo holds, by trackKey, the objects a non-apply write handed
// storage (trackUpdate's, before their times are stamped) and the
// warnings the write had, up to maxBytes of keys' bodies and stored
// objects; then it starts afresh. It hands out copies.
type trackMemo struct {
	mu       sync.Mutex
	m        map[trackKey]heldTrack
	size     int
	maxBytes int
}

// heldTrack is one write's object and warnings. checked says the
// object passed validation when the write stored it.
type heldTrack struct {
	obj      *unstructured.Unstructured
	warnings []string
	checked  bool
}

// reuse returns a copy of the object held for mk, its managedFields
// entries the field manager changed stamped now against old (nil: an
// empty object), the warnings its write had, and whether that write
// stored it (checked: validation passed). A write that reuses it
// skips the body's decode or the patch, and the field manager: the same
// request on the same stored object passed the same checks.
func (c *trackMemo) reuse(mk *trackKey, old *unstructured.Unstructured, now time.Time) (u *unstructured.Unstructured, warnings []string, checked, ok bool) {
	if mk == nil {
		return nil, nil, false, false
	}
	c.mu.Lock()
	h, ok := c.m[*mk]
	c.mu.Unlock()
	if !ok {
		return nil, nil, false, false
	}
	if old == nil {
		old = &unstructured.Unstructured{}
	}
	u = h.obj.DeepCopy()
	stampTimes(old, u, now)
	return u, h.warnings, h.checked, true
}

// stored notes that the write held under mk stored its object: its
// metadata passed validation (err nil). A reuse need not check it again.
func (c *trackMemo) stored(mk *trackKey, err error) {
	if mk == nil || err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.m[*mk]; ok && !h.checked {
		h.checked = true
		c.m[*mk] = h
	}
}

// put holds a copy of u and warnings under mk.
func (c *trackMemo) put(mk *trackKey, u *unstructured.Unstructured, warnings []string) {
	n := len(mk.body) + len(mk.old)
	if n > c.maxBytes {
		return
	}
	u = u.DeepCopy()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.size+n > c.maxBytes {
		c.m, c.size = map[trackKey]heldTrack{}, 0
	}
	if _, ok := c.m[*mk]; !ok {
		c.m[*mk] = heldTrack{obj: u, warnings: slices.Clone(warnings)}
		c.size += n
	}
}

// reusable reports whether u, the field manager's answer against old made
// between from and to (its clock), can be reused at another time. An entry
// whose time is old's is one the field manager kept, unless that time is
// the second it answered in: then it may have stamped it afresh, and
// stampTimes could not tell a later reuse to stamp it again.
func reusable(old, u *unstructured.Unstructured, from, to time.Time) bool {
	before := map[string]any{}
	for _, e := range entryMaps(old) {
		before[entryMapKey(e)] = e["time"]
	}
	for _, e := range entryMaps(u) {
		was, ok := before[entryMapKey(e)]
		if !ok || was != e["time"] {
			continue
		}
		s, _ := was.(string)
		t, err := time.Parse(time.RFC3339, s)
		if err != nil || !t.Before(from.Truncate(time.Second)) && !t.After(to) {
			return false
		}
	}
	return true
}
