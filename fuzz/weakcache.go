package fuzz

import (
	"runtime"
	"sync"
	"weak"
)

// weakCache keeps a value computed from a *K while the K lives: runs of a
// campaign share histories and objects, so what is derived from them once
// serves every run. Values are shared and must not be changed.
type weakCache[K, V any] struct {
	mu sync.RWMutex
	m  map[weak.Pointer[K]]V
}

// get returns the value for k, computing it with fn on the first call.
func (c *weakCache[K, V]) get(k *K, fn func(*K) V) V {
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
