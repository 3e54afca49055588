// Package weakcache keeps values derived from an object while the object
// lives. Runs of a campaign share histories and objects. So what is
// derived from them once serves every run.
//
//	var final weakcache.Cache[history.Log, map[string]string]
//	rvs := final.Get(log, computeFinalRVs)
package weakcache

import (
	"runtime"
	"sync"
	"weak"
)

// Cache keeps a value computed from a *K while the K lives. Values are
// shared and must not be changed. The zero value is ready to use; it is
// safe for concurrent use.
type Cache[K, V any] struct {
	mu sync.RWMutex
	m  map[weak.Pointer[K]]V
}

// Get returns the value for k, computing it with fn on the first call.
func (c *Cache[K, V]) Get(k *K, fn func(*K) V) V {
	wp := weak.Make(k)
	c.mu.RLock()
	v, ok := c.m[wp]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = fn(k)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[weak.Pointer[K]]V{}
	}
	if _, ok := c.m[wp]; !ok {
		c.m[wp] = v
		runtime.AddCleanup(k, func(wp weak.Pointer[K]) {
			c.mu.Lock()
			defer c.mu.Unlock()
			delete(c.m, wp)
		}, wp)
	}
	return v
}
