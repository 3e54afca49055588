package oracle

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Mask is one field path the differential oracle (same-outcome) does not
// compare, with why.
type Mask struct {
	// Resource is the resource name (history.Resource.Name) the mask is
	// for; AnyResource for every resource.
	Resource string
	// Path is the field path: keys joined by ".", a key that holds ".",
	// "/", "[", "]", "{", "}" or ";" quoted as ["key"], list indices as [*]. It masks the
	// field and everything under it. "" masks the resource as a whole:
	// its objects' presence, fields and counts.
	Path string
	// Why says what makes the field differ between correct runs.
	Why string
}

// AnyResource is the Mask.Resource (and Masks.Fields key) of a mask that
// holds for every resource.
const AnyResource = "*"

// DefaultMasks are the fields masked in every comparison, whatever two
// reference runs learn. A correct controller's end state holds them, but
// they depend on when and how often it wrote, not on what it decided.
var DefaultMasks = []Mask{
	{AnyResource, "metadata.uid", "the apiserver gives each created object a random UID"},
	{AnyResource, "metadata.resourceVersion", "it counts every write of the cluster: a retried, refused or extra write under a fault moves it"},
	{AnyResource, "metadata.creationTimestamp", "the (virtual) time the create was answered: a fault delays it"},
	{AnyResource, "metadata.deletionTimestamp", "the (virtual) time the delete was asked for"},
	{AnyResource, "metadata.managedFields", "each manager's last write time, and which write it was"},
	{AnyResource, "metadata.generation", "it counts the spec writes: a controller that writes an intermediate spec under a fault and fixes it later ends at a higher one"},
	{AnyResource, "metadata.name", "objects are matched by key, so a matched object's name is its key's; a generateName object's name has a random suffix, and is matched by generateName and ordinal instead"},
	{AnyResource, "metadata.ownerReferences[*].uid", "the UID of an owner the target created is random (see metadata.uid)"},
	{AnyResource, "status.observedGeneration", "follows metadata.generation"},
	{AnyResource, "status.conditions[*].lastTransitionTime", "the (virtual) time the condition last changed: a fault delays it"},
	{AnyResource, "status.conditions[*].lastUpdateTime", "the (virtual) time the condition was last written"},
	{AnyResource, "status.conditions[*].lastProbeTime", "the (virtual) time the condition was last probed"},
	{AnyResource, "status.conditions[*].lastHeartbeatTime", "the (virtual) time of the last heartbeat"},
	{leaseResourceName, "spec.renewTime", "a leader election's holder renews its lease every RetryPeriod: the last renewal is when the run stopped it"},
	{leaseResourceName, "spec.acquireTime", "the (virtual) time the holder took the lease: a crash or failed renewals move it"},
	{leaseResourceName, "spec.holderIdentity", "which candidate holds the lease at the end is where a crash or failed renewals left the election, and a candidate's identity is drawn per process (a hostname and a UUID)"},
	{leaseResourceName, "spec.leaseTransitions", "it counts the takeovers, which a crash or failed renewals make"},
	{"events", "", EventsWhy},
	{"events.events.k8s.io", "", EventsWhy},
}

// EventsWhy says why same-outcome compares no Event: they are a log of
// what a controller did on the way, which faults change, not state.
const EventsWhy = "Events are a log, not state: a recorder drops, aggregates and rate-limits them, names them by the (virtual) time, " +
	"and a correct controller logs a retry or a conflict a fault made; \"Events should be treated as informative, best-effort, " +
	"supplemental data\" (the events.k8s.io/v1 Event API). A bug only Events show is a user invariant's (fuzz.NewInvariant on Observation.Served)"

// leaseResourceName is the resource name of coordination.k8s.io leases,
// a leader election's clock.
const leaseResourceName = "leases.coordination.k8s.io"

// CollectedWhy says why CollectedMasks masks an object: the garbage
// collector's in one end state, it may be its successor's in the other.
const CollectedWhy = "a cluster's garbage collector deletes an object whose every owner is gone, and the controller that made it, woken by the delete, makes it again for the owner's successor of the same name; the replay runs no collector, so whether an end state holds the successor's object or the dead owner's (left out) is when the controller looked: before the owner was deleted and created again, or after"

// CollectedMasks returns the objects masked in comparing got with ref, for
// CollectedWhy. Per resource, it masks every object either left out as the
// garbage collector's (ResourceFinalState.Collected), with its counts. For
// a generateName object, it masks every object of its generateName.
func CollectedMasks(ref, got FinalState) Masks {
	m := Masks{Objects: map[string][]string{}}
	for _, res := range unionKeys(ref.Resources, got.Resources) {
		r, g := ref.Resources[res], got.Resources[res]
		if r == nil {
			r = &ResourceFinalState{}
		}
		if g == nil {
			g = &ResourceFinalState{}
		}
		for _, ck := range unionKeys(r.Collected, g.Collected) {
			m.Objects[res] = append(m.Objects[res], ck)
			gen, ok := strings.CutSuffix(ck, "*")
			if !ok {
				continue
			}
			for _, k := range unionKeys(r.Objects, g.Objects) {
				if strings.HasPrefix(k, gen+"#") {
					m.Objects[res] = append(m.Objects[res], k)
				}
			}
		}
	}
	if len(m.Objects) == 0 {
		return Masks{}
	}
	return m.Merge(Masks{})
}

// Masks says what the differential oracle does not compare: field paths
// and whole objects, per resource.
type Masks struct {
	// Fields holds the masked field paths (see Mask.Path), by resource
	// name; under AnyResource, those masked for every resource.
	Fields map[string][]string
	// Objects holds the match keys whose presence, content and event
	// counts are masked, by resource name (see ResourceFinalState.Objects
	// and Added). These are objects one fault-free reference run has and
	// the other not.
	Objects map[string][]string
}

// DefaultMaskSet returns DefaultMasks as Masks.
func DefaultMaskSet() Masks { return MaskSet(DefaultMasks...) }

// Merge returns the masks of m and o together, each path and key once,
// sorted.
func (m Masks) Merge(o Masks) Masks {
	return Masks{Fields: mergeLists(m.Fields, o.Fields), Objects: mergeLists(m.Objects, o.Objects)}
}

// mergeLists returns the union of a and b, per key, sorted and unique
// (nil when both are empty).
func mergeLists(a, b map[string][]string) map[string][]string {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := map[string][]string{}
	for _, m := range []map[string][]string{a, b} {
		for k, vs := range m {
			out[k] = append(out[k], vs...)
		}
	}
	for k, vs := range out {
		sort.Strings(vs)
		out[k] = compactStrings(vs)
	}
	return out
}

// compactStrings drops the repeats of sorted vs.
func compactStrings(vs []string) []string {
	out := vs[:0]
	for i, v := range vs {
		if i == 0 || v != vs[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// String renders the masks one per line, "resource path" for a field and
// "resource object key" for an object, sorted.
func (m Masks) String() string {
	var lines []string
	for res, ps := range m.Fields {
		for _, p := range ps {
			if p == "" {
				p = "(every object)"
			}
			lines = append(lines, res+" "+p)
		}
	}
	for res, ks := range m.Objects {
		for _, k := range ks {
			lines = append(lines, res+" object "+k)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// LearnMasks returns the masks two fault-free reference runs a and b of
// one input teach (Sieve's rule). It masks every field path whose value
// differs between them, keyed by resource, list indices generalized to
// [*]. It masks every object one has and the other not, or whose event
// counts differ.
// Objects are matched as DiffFinalState matches them (OwnedNameWhy).
func LearnMasks(a, b FinalState) Masks {
	m := Masks{Fields: map[string][]string{}, Objects: map[string][]string{}}
	b = renameOwned(a, b, Masks{}) // a child named after an owner the target made: a random UID
	for _, res := range unionKeys(a.Resources, b.Resources) {
		ra, rb := a.Resources[res], b.Resources[res]
		if ra == nil {
			ra = &ResourceFinalState{}
		}
		if rb == nil {
			rb = &ResourceFinalState{}
		}
		for _, k := range unionKeys(ra.Objects, rb.Objects) {
			ja, aok := ra.Objects[k]
			jb, bok := rb.Objects[k]
			if !aok || !bok {
				m.Objects[res] = append(m.Objects[res], k)
				continue
			}
			for _, d := range jsonDiffs(ja, jb) {
				m.Fields[res] = append(m.Fields[res], generalize(d.path))
			}
		}
		for _, k := range unionKeys(ra.Added, rb.Added) {
			if ra.Added[k] != rb.Added[k] {
				m.Objects[res] = append(m.Objects[res], k)
			}
		}
		for _, k := range unionKeys(ra.Deleted, rb.Deleted) {
			if ra.Deleted[k] != rb.Deleted[k] {
				m.Objects[res] = append(m.Objects[res], k)
			}
		}
	}
	return m.Merge(Masks{})
}

// MaskSet returns ms as Masks.
func MaskSet(ms ...Mask) Masks {
	m := Masks{Fields: map[string][]string{}}
	for _, d := range ms {
		m.Fields[d.Resource] = append(m.Fields[d.Resource], d.Path)
	}
	return m.Merge(Masks{})
}

// resourceMasked reports whether m masks resource res as a whole (a
// field mask of path "").
func (m Masks) resourceMasked(res string) bool {
	return slices.Contains(m.Fields[AnyResource], "") || slices.Contains(m.Fields[res], "")
}

// fieldMasked reports whether path (concrete indices) of resource res is
// under one of m's field masks.
func (m Masks) fieldMasked(res, path string) bool {
	g := generalize(path)
	for _, ps := range [][]string{m.Fields[AnyResource], m.Fields[res]} {
		for _, p := range ps {
			if p == "" || g == p || (strings.HasPrefix(g, p) && (g[len(p)] == '.' || g[len(p)] == '[')) {
				return true
			}
		}
	}
	return false
}

// objectMasked returns the masked match keys of resource res, as a set.
func (m Masks) objectMasked(res string) map[string]bool {
	set := map[string]bool{}
	for _, k := range m.Objects[res] {
		set[k] = true
	}
	return set
}

// index matches a list index of a path.
var index = regexp.MustCompile(`\[[0-9]+\]`)

// generalize returns path with every list index as [*].
func generalize(path string) string { return index.ReplaceAllString(path, "[*]") }

// fieldDiff is one field that differs between two objects' JSON.
type fieldDiff struct {
	path     string // concrete indices
	ref, got string // shortened values; "absent" when missing
}

// joinKey appends key k to path, quoted as ["k"] when it holds a
// character a path or a signature uses.
func joinKey(path, k string) string {
	if strings.ContainsAny(k, `./[]"{};`) || k == "" {
		return path + "[" + strconv.Quote(k) + "]"
	}
	if path == "" {
		return k
	}
	return path + "." + k
}

// render is v's JSON, or "absent".
func render(v any, ok bool) string {
	if !ok {
		return "absent"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// maxValueLen caps how long a value a difference shows.
const maxValueLen = 40

// shorten cuts s to maxValueLen characters, marking the cut with "…".
func shorten(s string) string {
	if r := []rune(s); len(r) > maxValueLen {
		return string(r[:maxValueLen-1]) + "…"
	}
	return s
}
