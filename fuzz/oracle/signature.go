package oracle

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Signature names a finding apart from the plan that reached it. It holds
// the invariants a run broke, in report order. It holds what differed,
// for those that say (Details). And it holds where the target went wrong
// (Site). That is the looping frame of a hot loop or request storm, the
// site of a panic, or the frame a leaked goroutine waits in. Site is ""
// when no broken invariant says. Two runs with one signature are one bug reached
// twice.
type Signature struct {
	// Invariants are the broken invariants' names, in report order.
	Invariants []string
	// Details holds, by invariant name, what differed, sorted, each once.
	// For same-outcome it is the resources and field paths
	// (DiffError.What). For a user invariant it is its error's sentinels
	// (ErrorDetail). An invariant that says nothing has none.
	Details map[string][]string
	// Site is the function where the target went wrong, without closure
	// suffixes: "k8s.io/client-go/tools/cache.(*Reflector).watchList".
	Site string
}

// String renders s as reports and flags write it, such as
// "no-request-storm,progress @ k8s.io/client-go/tools/cache.(*Reflector).watchList".
// An invariant's details go in braces, separated by "; ", as in
// "same-outcome{configmaps data.owner; secrets (extra)}".
// A signature with no site has no " @ …". A signature without details is
// written as before details were (format 1). ParseSignature reads both.
func (s Signature) String() string {
	parts := make([]string, len(s.Invariants))
	for i, name := range s.Invariants {
		parts[i] = name
		if ds := s.Details[name]; len(ds) > 0 {
			parts[i] += "{" + strings.Join(ds, "; ") + "}"
		}
	}
	inv := strings.Join(parts, ",")
	if s.Site == "" {
		return inv
	}
	return inv + " @ " + s.Site
}

// ErrSignature says a signature's text does not parse.
var ErrSignature = errors.New("bad signature")

// ParseSignature reads a signature as Signature.String writes it, with
// details or without (the format before them).
func ParseSignature(text string) (Signature, error) {
	bad := fmt.Errorf("%w: %q: want INVARIANT[{DETAIL[; DETAIL…]}][,INVARIANT…][ @ SITE]", ErrSignature, text)
	fields, err := splitTop(text, "@")
	if err != nil || len(fields) > 2 {
		return Signature{}, bad
	}
	var s Signature
	if len(fields) == 2 {
		s.Site = strings.TrimSpace(fields[1])
	}
	invs, _ := splitTop(fields[0], ",")
	for _, inv := range invs {
		inv = strings.TrimSpace(inv)
		if inv == "" {
			continue
		}
		name, rest, braced := strings.Cut(inv, "{")
		name = strings.TrimSpace(name)
		if name == "" || (braced && !strings.HasSuffix(rest, "}")) {
			return Signature{}, bad
		}
		s.Invariants = append(s.Invariants, name)
		if !braced {
			continue
		}
		ds, _ := splitTop(strings.TrimSuffix(rest, "}"), ";")
		for _, d := range ds {
			if d = strings.TrimSpace(d); d != "" {
				s.addDetails(name, d)
			}
		}
	}
	if len(s.Invariants) == 0 {
		return Signature{}, bad
	}
	return s, nil
}

// splitTop splits text at sep where it stands outside braces and outside
// Go-quoted strings; an error says the braces or quotes do not close.
func splitTop(text, sep string) ([]string, error) {
	var out []string
	level, quoted, from := 0, false, 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '{':
			level++
		case c == '}':
			level--
		case level == 0 && strings.HasPrefix(text[i:], sep):
			out = append(out, text[from:i])
			from = i + len(sep)
		}
	}
	if quoted || level != 0 {
		return nil, ErrSignature
	}
	return append(out, text[from:]), nil
}

// addDetails adds ds to the details of invariant name, keeping them sorted
// and each once.
func (s *Signature) addDetails(name string, ds ...string) {
	if len(ds) == 0 {
		return
	}
	if s.Details == nil {
		s.Details = map[string][]string{}
	}
	all := append(s.Details[name], ds...)
	slices.Sort(all)
	s.Details[name] = slices.Compact(all)
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
		s.addDetails(name, signatureDetails(err)...)
		if s.Site == "" {
			s.Site = siteOfErr(err)
		}
	}
	return s
}

// signatureDetails returns what an invariant's error says differed, for a
// Signature. An error with a Details method (DiffError) says it. The error
// of a user invariant (wrapping ErrUserInvariant) gives its sentinels.
// Those are the errors at the ends of its chain, each of errors.Join's
// branches, as ErrorDetail quotes them. So a check returning
// fmt.Errorf("%w: configmap %s", ErrLost, key) is one finding whatever
// the key. A user's error that wraps nothing gives none. Its text may
// name keys and times, and one bug would be a finding per run. Other
// errors give none.
func signatureDetails(err error) []string {
	var d interface{ Details() []string }
	if errors.As(err, &d) {
		return d.Details()
	}
	if !errors.Is(err, ErrUserInvariant) {
		return nil
	}
	var out []string
	for _, root := range rootsOf(err) {
		if root != ErrUserInvariant && !isUserLeaf(err, root) {
			out = append(out, ErrorDetail(root))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// isUserLeaf says whether root is the user's error itself, as the
// invariant returned it (beside ErrUserInvariant in one wrapping),
// wrapping no sentinel.
func isUserLeaf(err, root error) bool {
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		errs := u.Unwrap()
		if slices.Contains(errs, ErrUserInvariant) {
			return slices.ContainsFunc(errs, func(e error) bool { return sameErr(e, root) })
		}
		for _, e := range errs {
			if isUserLeaf(e, root) {
				return true
			}
		}
	case interface{ Unwrap() error }:
		if e := u.Unwrap(); e != nil {
			return isUserLeaf(e, root)
		}
	}
	return false
}

// sameErr says whether a and b are one error value, without the panic ==
// makes on an error type that is not comparable.
func sameErr(a, b error) bool {
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta != nil && ta.Comparable() && a == b
}

// ErrorDetail is the Signature detail of a user invariant's sentinel
// error: its text, Go-quoted, cut to maxDetailLen characters ("…" marks
// the cut). Known.Details holds it to mark one error of a user invariant
// known.
func ErrorDetail(sentinel error) string {
	text := sentinel.Error()
	if r := []rune(text); len(r) > maxDetailLen {
		text = string(r[:maxDetailLen-1]) + "…"
	}
	return strconv.Quote(text)
}

// maxDetailLen caps the text of a user invariant's error a signature
// carries: an error that wraps no sentinel is its own, whole report
// perhaps.
const maxDetailLen = 120

// rootsOf returns the errors at the ends of err's chain: the errors
// err wraps that wrap none, every branch of a multi-error followed.
func rootsOf(err error) []error {
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		var out []error
		for _, e := range u.Unwrap() {
			out = append(out, rootsOf(e)...)
		}
		return out
	case interface{ Unwrap() error }:
		if e := u.Unwrap(); e != nil {
			return rootsOf(e)
		}
	}
	return []error{err}
}

// Known is a finding known already, such as a client-go bug reported
// upstream. A run whose signature it matches is logged and counted, but
// does not fail. A campaign goes on looking for the bugs behind it.
// KnownFindings lists the shipped ones.
type Known struct {
	// Name is the finding's name: "kubernetes#140890". Reports, the
	// summary and fuzz.Options.ReportKnown use it.
	Name string
	// Doc says in one line what the bug is.
	Doc string
	// Site is where the target goes wrong (Signature.Site); "" matches a
	// run with no site only.
	Site string
	// Invariants are the invariants the bug can break. A run matches when
	// what it broke is among them and its site is Site. That holds
	// whatever the plan made of it: a storm that is also a hot loop, or
	// not. A run that also broke another invariant is no known finding:
	// the other may be a bug of its own.
	Invariants []string
	// Details narrows an invariant to what the bug makes differ
	// (Signature.Details), by invariant name. A run matches only when each
	// of its details of that invariant is among them. An invariant not
	// named here matches whatever its details. So a signature of format 1,
	// "same-outcome", matches every same-outcome finding.
	Details map[string][]string
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
		want, narrowed := k.Details[name]
		for _, d := range s.Details[name] {
			if narrowed && !slices.Contains(want, d) {
				return false
			}
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
// upstream (docs/bugs-found.md). fuzz.Options.ReportKnown names them. A
// campaign takes those of the client-go it runs as known.
var KnownFindings = []Known{
	{Name: "kubernetes#140890",
		Doc: "client-go: a WatchList stream that ends before its initial events end is restarted at once, forever " +
			"(the WatchList restart storm; fix PR kubernetes#140902 open)",
		Site:       "k8s.io/client-go/tools/cache.(*Reflector).watchList",
		Invariants: []string{"converged", "no-lost-delete", "live", "no-request-storm", "progress", "no-hot-loop"},
		ClientGo:   []string{"v0.35", "v0.36", "v0.37"}},
}

// KnownSignature returns a known finding named by its signature's text,
// as a report prints it. It is for a user who takes a reported finding as
// known. The text gives its invariants, site and details.
// "same-outcome{configmaps data.owner}" matches the runs whose
// same-outcome differences are all in configmaps' data.owner.
// "same-outcome" matches every one.
func KnownSignature(text string) (Known, error) {
	s, err := ParseSignature(text)
	if err != nil {
		return Known{}, err
	}
	return Known{Name: s.String(), Doc: "known by its signature", Site: s.Site, Invariants: s.Invariants, Details: s.Details}, nil
}
