package writediff

import (
	"regexp"
	"sort"
	"strings"
)

var (
	uidPattern     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	numberPattern  = regexp.MustCompile(`\b[0-9]+\b`)
	genNamePattern = regexp.MustCompile(`\bgen-[a-z0-9]{5}\b`)
	// timePattern matches RFC 3339 times, as in a deletionTimestamp.
	timePattern = regexp.MustCompile(`\b[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})`)
)

// normalizer replaces what is particular to one run in a sequence's
// transcript: its namespace, uids, the resourceVersions seen, generated
// names and times.
type normalizer struct {
	ns  string
	rvs map[string]bool
}

func newNormalizer(ns string) *normalizer {
	return &normalizer{ns: ns, rvs: map[string]bool{}}
}

// noteRV records a resourceVersion seen in the run.
func (n *normalizer) noteRV(rv string) {
	if rv != "" {
		n.rvs[rv] = true
	}
}

// text normalizes a message.
func (n *normalizer) text(s string) string {
	if n.ns != "" {
		s = strings.ReplaceAll(s, n.ns, "<ns>")
	}
	s = uidPattern.ReplaceAllString(s, "<uid>")
	s = timePattern.ReplaceAllString(s, "<time>")
	s = genNamePattern.ReplaceAllString(s, "gen-<rand>")
	return numberPattern.ReplaceAllStringFunc(s, func(d string) string {
		if n.rvs[d] {
			return "<rv>"
		}
		return d
	})
}

// sequence normalizes a sequence's transcript in place.
func (n *normalizer) sequence(st *SequenceTranscript) {
	for i := range st.Steps {
		n.outcome(&st.Steps[i])
	}
	for i, e := range st.Events {
		st.Events[i] = n.text(e)
	}
	st.Watch = n.text(st.Watch)
}

// outcome normalizes an outcome in place.
func (n *normalizer) outcome(o *Outcome) {
	o.Message = n.text(o.Message)
	for i, c := range o.Causes {
		o.Causes[i] = n.text(c)
	}
	sort.Strings(o.Causes)
	for k, v := range o.Shown {
		o.Shown[k] = n.text(v)
	}
	for _, m := range []*Meta{o.Object, o.StoredObject} {
		if m != nil {
			m.Name = n.text(m.Name)
		}
	}
}
