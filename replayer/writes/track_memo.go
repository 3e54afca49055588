package writes

import (
	"reflect"
	"sync"

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
	if raw, found := rs.Raw(key); key != "" && found {
		k.hasOld, k.old = true, string(raw)
	}
	return k
}

// tracks holds the field manager's answers of every replay in the
// process.
var tracks = &trackMemo{maxBytes: 8 << 20}

// trackMemo holds trackUpdate's objects, before their times are stamped,
// by trackKey, up to maxBytes of keys' bodies and stored objects; then it
// starts afresh. It hands out copies.
type trackMemo struct {
	mu       sync.Mutex
	m        map[trackKey]*unstructured.Unstructured
	size     int
	maxBytes int
}

// get returns a copy of the object held under k.
func (c *trackMemo) get(k *trackKey) (*unstructured.Unstructured, bool) {
	c.mu.Lock()
	u, ok := c.m[*k]
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	return u.DeepCopy(), true
}

// put holds a copy of u under k.
func (c *trackMemo) put(k *trackKey, u *unstructured.Unstructured) {
	n := len(k.body) + len(k.old)
	if n > c.maxBytes {
		return
	}
	u = u.DeepCopy()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.size+n > c.maxBytes {
		c.m, c.size = map[trackKey]*unstructured.Unstructured{}, 0
	}
	if _, ok := c.m[*k]; !ok {
		c.m[*k] = u
		c.size += n
	}
}
