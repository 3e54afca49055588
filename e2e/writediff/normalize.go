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
	// abortedPattern matches what a client says of a response the server
	// aborted: HTTP/2 resets the stream (a real kube-apiserver's), HTTP/1
	// closes the connection (the replay's test server).
	abortedPattern = regexp.MustCompile(`: (stream error: stream ID [0-9]+; INTERNAL_ERROR; received from peer|EOF|unexpected EOF|read: connection reset by peer)$`)
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

// abortedMessage stands for any message abortedPattern matches: where
// the client was, and which transport, differ.
const abortedMessage = "no answer: the server aborted the response"

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
	if o.Code == -1 && abortedPattern.MatchString(o.Message) {
		o.Message = abortedMessage
	}
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
