package history

import (
	"sync"

	"github.com/lwreplay/lwreplay/internal/weakcache"
)

// WithResourceVersion returns a copy of o whose metadata.resourceVersion
// (in its fields and its JSON) is rv. The copy is made once per object
// and RV; o is immutable, and so is the copy. So a fault that renames a
// history's RVs renames them the same way in every run that draws it.
func WithResourceVersion(o *Object, rv string) (*Object, error) {
	cs := rvCopies.Get(o, func(*Object) *objectCopies { return &objectCopies{byRV: map[string]*Object{}} })
	cs.mu.Lock()
	c, ok := cs.byRV[rv]
	cs.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := withMetadata(o, "resourceVersion", rv)
	if err != nil {
		return nil, err
	}
	c.ResourceVersion = rv
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if prev, ok := cs.byRV[rv]; ok {
		return prev, nil
	}
	if len(cs.byRV) < maxRVCopies {
		cs.byRV[rv] = c
	}
	return c, nil
}

// objectCopies are the copies of one object under other RVs made so far.
type objectCopies struct {
	mu   sync.Mutex
	byRV map[string]*Object
}

// maxRVCopies bounds the copies kept of one object.
const maxRVCopies = 8

// rvCopies holds each object's copies under other RVs; they go with it.
var rvCopies weakcache.Cache[Object, *objectCopies]
