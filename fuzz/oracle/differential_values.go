package oracle

import (
	"bytes"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
)

// TimestampWhy says why same-outcome takes any two timestamps for equal,
// wherever in an object they are.
const TimestampWhy = "a timestamp a controller writes (time.Now().Format(time.RFC3339) in an annotation, a time in its status) " +
	"says when its write ran, and a fault moves that in virtual time"

// IsTimestamp reports whether s is an RFC 3339 date-time, as
// time.RFC3339 and time.RFC3339Nano format one:
// "2006-01-02T15:04:05Z", "2006-01-02T15:04:05.999+07:00".
func IsTimestamp(s string) bool {
	if len(s) < len("2006-01-02T15:04:05Z") || s[4] != '-' || s[10] != 'T' {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// bothTimestamps reports whether a and b, decoded JSON values, are both
// timestamps (IsTimestamp): same-outcome does not compare them.
func bothTimestamps(a, b any) bool {
	sa, aok := a.(string)
	sb, bok := b.(string)
	return aok && bok && IsTimestamp(sa) && IsTimestamp(sb)
}

// OwnedNameWhy says why same-outcome matches a run's object with the
// reference's of another name (ownedRenames).
const OwnedNameWhy = "a controller may name a child after its owner's UID (<owner>-<hash of uid>); when the owner was deleted and created again " +
	"under its name (a recreate), its new UID gives the child a new name, a correct controller's doing"

// ownerRef is one metadata.ownerReferences entry.
type ownerRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	UID  string `json:"uid"`
}

// ownersOf decodes raw's owner references (nil when it has none or does
// not decode).
func ownersOf(raw []byte) []ownerRef {
	if !bytes.Contains(raw, []byte(`"ownerReferences"`)) {
		return nil
	}
	var m struct {
		Metadata struct {
			OwnerReferences []ownerRef `json:"ownerReferences"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m.Metadata.OwnerReferences
}

// hashToken matches a name part that may be a hash of a UID, or part of a
// UID. It is four or more lower-case letters and digits.
var hashToken = regexp.MustCompile(`^[a-z0-9]{4,}$`)

// hexToken matches a part of a UID: hexadecimal digits.
var hexToken = regexp.MustCompile(`^[0-9a-f]+$`)

// hashLike reports whether a name part may be a hash of a UID or a part
// of one. It is a hashToken that is hexadecimal, holds a digit, or holds
// no vowel. Kubernetes' rand.SafeEncodeString alphabet has no vowel;
// "primary" is a word.
func hashLike(part string) bool {
	return hashToken.MatchString(part) &&
		(hexToken.MatchString(part) || strings.ContainsAny(part, "0123456789") || !strings.ContainsAny(part, "aeiou"))
}

// nameSep splits a name into its parts, keeping the separators.
var nameSep = regexp.MustCompile(`[-.]`)

// hashParts returns the parts of ref's and got's names that differ, as
// pairs ref → got. A name is a key's last segment, in one namespace. The
// names must have the same separators, and every part that differs must
// be hashLike on both sides; ok is false otherwise.
func hashParts(ref, got string) (pairs [][2]string, ok bool) {
	rns, rn := splitKey(ref)
	gns, gn := splitKey(got)
	if rns != gns || rn == gn {
		return nil, false
	}
	if !slices.Equal(nameSep.FindAllString(rn, -1), nameSep.FindAllString(gn, -1)) {
		return nil, false
	}
	rp, gp := nameSep.Split(rn, -1), nameSep.Split(gn, -1)
	for i := range rp {
		if rp[i] == gp[i] {
			continue
		}
		if !hashLike(rp[i]) || !hashLike(gp[i]) {
			return nil, false
		}
		pairs = append(pairs, [2]string{rp[i], gp[i]})
	}
	return pairs, true
}

// splitKey splits a match key "namespace/name" (or "name").
func splitKey(k string) (ns, name string) {
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		return k[:i], k[i+1:]
	}
	return "", k
}

// sameOwnerNewUID reports whether ref and got, objects' JSON, have an
// owner of one kind and name with other UIDs: one owner, deleted and
// created again.
func sameOwnerNewUID(ref, got []byte) bool {
	for _, r := range ownersOf(ref) {
		for _, g := range ownersOf(got) {
			if r.Kind == g.Kind && r.Name == g.Name && r.UID != g.UID {
				return true
			}
		}
	}
	return false
}

// renameOwned returns got with its objects named after a recreated
// owner's UID renamed to ref's (ownedRenames), per resource. It leaves out
// the objects m masks. The hash parts that differ then read as ref's in
// every object of got that holds one (a parent's status naming its
// child). It returns got itself when nothing pairs.
func renameOwned(ref, got FinalState, m Masks) FinalState {
	var pairs [][2]string
	out := FinalState{Resources: make(map[string]*ResourceFinalState, len(got.Resources))}
	for res, g := range got.Resources {
		out.Resources[res] = g
		r := ref.Resources[res]
		if r == nil || g == nil || m.resourceMasked(res) {
			continue
		}
		renamed, ps := ownedRenames(r, g, m.objectMasked(res))
		out.Resources[res], pairs = renamed, append(pairs, ps...)
	}
	if len(pairs) == 0 {
		return got
	}
	slices.SortFunc(pairs, func(a, b [2]string) int { return strings.Compare(a[1], b[1]) })
	for res, g := range out.Resources {
		if g == nil {
			continue
		}
		var objs map[string][]byte
		for k, raw := range g.Objects {
			fixed, changed := raw, false
			for _, p := range pairs {
				if bytes.Contains(fixed, []byte(p[1])) {
					fixed, changed = bytes.ReplaceAll(fixed, []byte(p[1]), []byte(p[0])), true
				}
			}
			if !changed {
				continue
			}
			if objs == nil {
				objs = maps.Clone(g.Objects)
			}
			objs[k] = fixed
		}
		if objs != nil {
			c := *g
			c.Objects = objs
			out.Resources[res] = &c
		}
	}
	return out
}

// ownedRenames pairs the objects of r that g lacks with the objects g
// has and r not, for OwnedNameWhy. It leaves masked keys out. A pair's
// objects have an owner of one kind and name but another UID. Their names
// differ only in hashLike parts. A pair must be the only candidate of
// either side. It returns g with each paired object under r's key, its
// counts added to that key's. It also returns the differing parts (ref's,
// got's). It returns g itself when nothing pairs.
func ownedRenames(r, g *ResourceFinalState, masked map[string]bool) (*ResourceFinalState, [][2]string) {
	type cand struct {
		got   string
		pairs [][2]string
	}
	var missing, extra []string
	for k := range r.Objects {
		if _, ok := g.Objects[k]; !ok && !masked[k] && !strings.Contains(k, "#") {
			missing = append(missing, k)
		}
	}
	for k := range g.Objects {
		if _, ok := r.Objects[k]; !ok && !masked[k] && !strings.Contains(k, "#") {
			extra = append(extra, k)
		}
	}
	if len(missing) == 0 || len(extra) == 0 {
		return g, nil
	}
	cands, gotCands := map[string][]cand{}, map[string]int{}
	for _, rk := range missing {
		for _, gk := range extra {
			if pairs, ok := hashParts(rk, gk); ok && sameOwnerNewUID(r.Objects[rk], g.Objects[gk]) {
				cands[rk] = append(cands[rk], cand{gk, pairs})
				gotCands[gk]++
			}
		}
	}
	renamed := map[string]string{} // got key -> ref key
	var pairs [][2]string
	for rk, cs := range cands {
		if len(cs) == 1 && gotCands[cs[0].got] == 1 {
			renamed[cs[0].got] = rk
			pairs = append(pairs, cs[0].pairs...)
		}
	}
	if len(renamed) == 0 {
		return g, nil
	}
	key := func(k string) string {
		if rk, ok := renamed[k]; ok {
			return rk
		}
		return k
	}
	out := &ResourceFinalState{Objects: map[string][]byte{}, Added: map[string]int{}, Deleted: map[string]int{}, Disturbed: map[string]bool{}}
	for k, v := range g.Objects {
		out.Objects[key(k)] = v
	}
	for k, n := range g.Added {
		out.Added[key(k)] += n
	}
	for k, n := range g.Deleted {
		out.Deleted[key(k)] += n
	}
	for k := range g.Disturbed {
		out.Disturbed[key(k)] = true
	}
	if g.Collected != nil {
		out.Collected = map[string]bool{}
		for k := range g.Collected {
			out.Collected[key(k)] = true
		}
	}
	return out, pairs
}
