package oracle

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Signature names a finding apart from the plan that reached it: the
// invariants a run broke, in report order, and where the target went
// wrong (the looping frame of a hot loop or request storm, the site of a
// panic, the frame a goroutine left behind waits in; "" when no broken
// invariant says). Two runs with one signature are one bug reached twice.
type Signature struct {
	// Invariants are the broken invariants' names, in report order.
	Invariants []string
	// Site is the function where the target went wrong, without closure
	// suffixes: "k8s.io/client-go/tools/cache.(*Reflector).watchList".
	Site string
}

// String renders s as reports and flags write it:
// "no-request-storm,progress @ k8s.io/client-go/tools/cache.(*Reflector).watchList"
// (without " @ …" when s has no site).
func (s Signature) String() string {
	inv := strings.Join(s.Invariants, ",")
	if s.Site == "" {
		return inv
	}
	return inv + " @ " + s.Site
}

// ErrSignature says a signature's text does not parse.
var ErrSignature = errors.New("bad signature")

// ParseSignature reads a signature as Signature.String writes it.
func ParseSignature(text string) (Signature, error) {
	inv, site, _ := strings.Cut(text, "@")
	var s Signature
	s.Site = strings.TrimSpace(site)
	for _, name := range strings.Split(inv, ",") {
		if name = strings.TrimSpace(name); name != "" {
			s.Invariants = append(s.Invariants, name)
		}
	}
	if len(s.Invariants) == 0 {
		return Signature{}, fmt.Errorf("%w: %q: want INVARIANT[,INVARIANT…][ @ SITE]", ErrSignature, text)
	}
	return s, nil
}

// SignatureOf returns the signature of what results (an invariant's
// name → its error, nil when it held) say was broken: no invariants when
// nothing was.
func SignatureOf(results map[string]error) Signature {
	var s Signature
	for _, name := range InReportOrder(results) {
		err := results[name]
		if err == nil {
			continue
		}
		s.Invariants = append(s.Invariants, name)
		if s.Site == "" {
			s.Site = siteOfErr(err)
		}
	}
	return s
}

// Known is a finding known already — a bug of client-go's, reported
// upstream, say: a run whose signature it matches is logged and counted,
// but does not fail, and a campaign goes on looking for the bugs behind
// it. KnownFindings lists the shipped ones.
type Known struct {
	// Name is the finding's name: "kubernetes#140890". Reports, the
	// summary and Options.ReportKnown use it.
	Name string
	// Doc says in one line what the bug is.
	Doc string
	// Site is where the target goes wrong (Signature.Site); "" matches a
	// run with no site only.
	Site string
	// Invariants are the invariants the bug can break: a run matches when
	// what it broke is among them (whatever the plan made of it: a storm
	// that is also a hot loop, or not) and its site is Site. A run that
	// also broke another invariant is no known finding: the other may be
	// a bug of its own.
	Invariants []string
	// ClientGo lists the client-go minor versions the bug exists in
	// ("v0.37"); empty means every version.
	ClientGo []string
}

// Matches reports whether s is a signature of k.
func (k Known) Matches(s Signature) bool {
	if len(s.Invariants) == 0 || s.Site != k.Site {
		return false
	}
	for _, name := range s.Invariants {
		if !slices.Contains(k.Invariants, name) {
			return false
		}
	}
	return true
}

// In reports whether k exists in client-go version v ("v0.37.2").
func (k Known) In(v string) bool {
	if len(k.ClientGo) == 0 {
		return true
	}
	for _, minor := range k.ClientGo {
		if v == minor || strings.HasPrefix(v, minor+".") {
			return true
		}
	}
	return false
}

// KnownFindings are the bugs lwreplay found in client-go that are open
// upstream (docs/bugs-found.md), as Options.ReportKnown names them;
// a campaign takes those of the client-go it runs as known.
var KnownFindings = []Known{
	{Name: "kubernetes#140890",
		Doc: "client-go: a WatchList stream that ends before its initial events end is restarted at once, forever " +
			"(the WatchList restart storm; fix PR kubernetes#140902 open)",
		Site:       "k8s.io/client-go/tools/cache.(*Reflector).watchList",
		Invariants: []string{"converged", "no-lost-delete", "live", "no-request-storm", "progress", "no-hot-loop"},
		ClientGo:   []string{"v0.35", "v0.36", "v0.37"}},
}

// KnownSignature returns a known finding named by its signature's text
// (as a report prints it), for a user who takes a reported finding as
// known.
func KnownSignature(text string) (Known, error) {
	s, err := ParseSignature(text)
	if err != nil {
		return Known{}, err
	}
	return Known{Name: s.String(), Doc: "known by its signature", Site: s.Site, Invariants: s.Invariants}, nil
}
