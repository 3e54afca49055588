package history

import (
	"maps"
	"slices"
	"strings"
)

// interner shares what objects have in common. A build reads each object
// again in every event. Most events leave its name, namespace, UID,
// labels and annotations as they were. And many objects carry the same
// labels: an app's configmaps, a deployment's pods but for one label.
// Sharing them keeps the memory of a long history close to one copy per
// object and label set, not per event. Shared label and annotation maps
// are never written (no code writes an Object's maps).
type interner struct {
	last map[string]*Object           // per key, the last version read
	sets map[string]map[string]string // label and annotation maps by content
}

// share points o's unchanged metadata at its last version's, and its
// labels and annotations at an equal map read before.
func (in *interner) share(o *Object) {
	if o == nil {
		return
	}
	if in.last == nil {
		in.last, in.sets = map[string]*Object{}, map[string]map[string]string{}
	}
	prev := in.last[o.key]
	in.last[o.key] = o
	if prev != nil {
		o.key = prev.key
		o.Namespace, o.Name = prev.Namespace, prev.Name
		if o.UID == prev.UID {
			o.UID = prev.UID
		}
	}
	o.Labels = in.set(o.Labels, prev, func(p *Object) map[string]string { return p.Labels })
	o.Annotations = in.set(o.Annotations, prev, func(p *Object) map[string]string { return p.Annotations })
}

// set returns m, or an equal map met before: the previous version's, or
// one of any object with the same content.
func (in *interner) set(m map[string]string, prev *Object, of func(*Object) map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	if prev != nil && maps.Equal(m, of(prev)) {
		return of(prev)
	}
	keys := slices.Sorted(maps.Keys(m))
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(m[k])
		b.WriteByte(0)
	}
	if s, ok := in.sets[b.String()]; ok {
		return s
	}
	in.sets[b.String()] = m
	return m
}
