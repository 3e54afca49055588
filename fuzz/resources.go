package fuzz

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/fuzz/internal/cassettes"
	"github.com/lwreplay/lwreplay/history"
)

// Recorded is a resource that cassettes recorded, and which of them did.
type Recorded struct {
	// Resource is the resource, with its kind and scope.
	Resource history.Resource
	// Cassettes are the paths of the files of the recordings that recorded it
	// (every part of each), in the order they were given. They are the
	// Options.Cassettes of a campaign over it.
	Cassettes []string
	// Recordings names those recordings (cassette.Recording's Name), one
	// per cassette of that campaign.
	Recordings []string
}

// RecordedResources loads the cassette files and directories paths name,
// as recordings (see Options.Cassettes). It returns the resources they
// recorded, each with the recordings that recorded it. They come in order
// of first appearance, a recording's in its history's order. The error
// names the cassette that does not load or build.
func RecordedResources(paths []string, opts ...cassette.LoadOption) ([]Recorded, error) {
	loaded, err := cassettes.LoadRecordings(paths, opts...)
	if err != nil {
		return nil, err
	}
	rs, err := BuildRecordings(loaded)
	if err != nil {
		return nil, err
	}
	return rs.Resources(), nil
}

// Recordings are recordings loaded and built once, for every campaign of
// one command (a campaign per resource: Options.Recordings), in the order
// given.
type Recordings struct {
	recs []cassettes.Recording
}

// BuildRecordings builds each recording's history, once; the error names
// the recording that does not build.
func BuildRecordings(recs []cassette.Recording) (*Recordings, error) {
	built, err := cassettes.Build(recs)
	if err != nil {
		return nil, err
	}
	return &Recordings{recs: built}, nil
}

// Resources returns the resources rs recorded, in order of first
// appearance (a recording's in its history's order), each with the
// recordings that recorded it.
func (rs *Recordings) Resources() []Recorded {
	var out []Recorded
	index := map[history.Resource]int{}
	for _, r := range rs.recs {
		for _, l := range r.History.Logs {
			id := l.Resource.ID()
			i, ok := index[id]
			if !ok {
				i = len(out)
				index[id] = i
				out = append(out, Recorded{Resource: l.Resource})
			}
			out[i].Cassettes = append(out[i].Cassettes, r.Rec.Paths()...)
			out[i].Recordings = append(out[i].Recordings, r.Rec.Name())
		}
	}
	return out
}

// ErrResourceNotRecorded says a resource name names no recorded resource,
// or more than one.
var ErrResourceNotRecorded = errors.New("resource not recorded")

// ResolveResource returns the resource of recorded that name names, as
// kubectl names resources; case does not matter:
//   - plural ("pods");
//   - group-qualified ("deployments.apps");
//   - fully qualified ("deployments.v1.apps", "pods.v1");
//   - singular or kind ("pod", "Deployment", "deployment.apps").
//
// The error, an ErrResourceNotRecorded, lists the recorded resources when
// name names none, and the candidates when it names several.
func ResolveResource(name string, recorded []history.Resource) (history.Resource, error) {
	want := strings.ToLower(strings.TrimSpace(name))
	var found []history.Resource
	for _, r := range recorded {
		if matchesResource(want, r) && !containsID(found, r) {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return history.Resource{}, fmt.Errorf("%w: %q (recorded: %s)", ErrResourceNotRecorded, name, resourceList(recorded))
	}
	return history.Resource{}, fmt.Errorf("%w: %q names several: %s (name one fully)", ErrResourceNotRecorded, name, resourceList(found))
}

// matchesResource reports whether the lower-case name names r.
func matchesResource(name string, r history.Resource) bool {
	res, kind := strings.ToLower(r.Resource), strings.ToLower(r.Kind)
	names := []string{res, strings.ToLower(r.String())}
	if kind != "" {
		names = append(names, kind)
	}
	if r.Group != "" {
		names = append(names, res+"."+r.Group)
		if kind != "" {
			names = append(names, kind+"."+r.Group, kind+"."+r.Version+"."+r.Group)
		}
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// containsID reports whether rs holds r (by group, version, resource).
func containsID(rs []history.Resource, r history.Resource) bool {
	for _, x := range rs {
		if x.ID() == r.ID() {
			return true
		}
	}
	return false
}

// resourceList names rs, comma-separated ("none" when empty).
func resourceList(rs []history.Resource) string {
	if len(rs) == 0 {
		return "none"
	}
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.String()
	}
	return strings.Join(names, ", ")
}

// Resource returns the resource the campaign's runs watch.
func (c *Campaign) Resource() history.Resource { return c.res }
