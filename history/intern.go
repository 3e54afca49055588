package history

import "maps"

// interner shares what an object's versions have in common: a build reads
// each object again in every event, and most events leave its name,
// namespace, UID, labels and annotations as they were. Sharing them keeps
// the memory of a long history close to one copy per object, not per
// event. Shared label and annotation maps are never written (no code
// writes an Object's maps).
type interner struct {
	last map[string]*Object // per key, the last version read
}

// share points o's unchanged metadata at its last version's.
func (in *interner) share(o *Object) {
	if o == nil {
		return
	}
	if in.last == nil {
		in.last = map[string]*Object{}
	}
	prev := in.last[o.key]
	in.last[o.key] = o
	if prev == nil {
		return
	}
	o.key = prev.key
	o.Namespace, o.Name = prev.Namespace, prev.Name
	if o.UID == prev.UID {
		o.UID = prev.UID
	}
	if maps.Equal(o.Labels, prev.Labels) {
		o.Labels = prev.Labels
	}
	if maps.Equal(o.Annotations, prev.Annotations) {
		o.Annotations = prev.Annotations
	}
}
