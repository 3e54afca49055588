package oracle_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

func TestSignatureText(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    oracle.Signature
		wantErr bool
	}{
		{name: "signature - invariants and a site - pass", text: "no-request-storm,progress @ k8s.io/client-go/tools/cache.(*Reflector).watchList",
			want: oracle.Signature{Invariants: []string{"no-request-storm", "progress"}, Site: "k8s.io/client-go/tools/cache.(*Reflector).watchList"}},
		{name: "signature - invariants only - pass", text: "converged", want: oracle.Signature{Invariants: []string{"converged"}}},
		{name: "signature - no invariant - fail", text: " @ main.f", wantErr: true},
		{name: "signature - same-outcome's resources and paths - pass", text: "same-outcome{configmaps data.v; secrets (extra)}",
			want: oracle.Signature{Invariants: []string{"same-outcome"}, Details: map[string][]string{"same-outcome": {"configmaps data.v", "secrets (extra)"}}}},
		{name: "signature - a quoted key in a path - pass", text: `same-outcome{configmaps metadata.annotations["example.com/a;b{c}"]},converged`,
			want: oracle.Signature{Invariants: []string{"same-outcome", "converged"}, Details: map[string][]string{"same-outcome": {`configmaps metadata.annotations["example.com/a;b{c}"]`}}}},
		{name: "signature - a user's sentinel with a comma, @ and braces, and a site - pass", text: `mirror{"lost, a delete @ x {y}"},clean-stop @ main.f`,
			want: oracle.Signature{Invariants: []string{"mirror", "clean-stop"}, Details: map[string][]string{"mirror": {`"lost, a delete @ x {y}"`}}, Site: "main.f"}},
		{name: "signature - a brace not closed - fail", text: "same-outcome{configmaps data.v", wantErr: true},
		{name: "signature - a quote not closed - fail", text: `mirror{"lost}`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := oracle.ParseSignature(tc.text)
			if tc.wantErr {
				if !errors.Is(err, oracle.ErrSignature) {
					t.Fatalf("ParseSignature(%q): got error %v, want %v", tc.text, err, oracle.ErrSignature)
				}
				return
			}
			if err != nil || got.String() != tc.want.String() || got.String() != strings.TrimSpace(tc.text) || fmt.Sprint(got.Details) != fmt.Sprint(tc.want.Details) {
				t.Errorf("ParseSignature(%q): got %q, %v, want %q", tc.text, got, err, tc.want)
			}
		})
	}
}

func TestKnownMatches(t *testing.T) {
	storm := oracle.KnownFindings[0]
	site := storm.Site
	tests := []struct {
		name string
		sig  oracle.Signature
		want bool
	}{
		{"known - storm and hot loop at the reflector - pass", oracle.Signature{Invariants: []string{"no-request-storm", "progress", "no-hot-loop"}, Site: site}, true},
		{"known - progress alone at the reflector (a stream slower than the timeout) - pass", oracle.Signature{Invariants: []string{"progress"}, Site: site}, true},
		{"known - a user invariant broken beside the storm - not known, fail", oracle.Signature{Invariants: []string{"no-request-storm", "mirror-matches-truth"}, Site: site}, false},
		{"known - a storm of another site - not known, fail", oracle.Signature{Invariants: []string{"no-request-storm"}, Site: "example.com/ctrl.(*C).relist"}, false},
		{"known - no site - not known, fail", oracle.Signature{Invariants: []string{"progress"}}, false},
		{"known - nothing broken - not known, fail", oracle.Signature{Site: site}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := storm.Matches(tc.sig); got != tc.want {
				t.Errorf("Matches(%s): got %v, want %v", tc.sig, got, tc.want)
			}
		})
	}
	versions := []struct {
		v    string
		want bool
	}{{"v0.35.10", true}, {"v0.37.2", true}, {"v0.38.0", false}, {"v0.3", false}}
	for _, tc := range versions {
		t.Run(fmt.Sprintf("known - client-go %s - %v", tc.v, tc.want), func(t *testing.T) {
			if got := storm.In(tc.v); got != tc.want {
				t.Errorf("In(%s): got %v, want %v", tc.v, got, tc.want)
			}
		})
	}
}

// errLost and errDup are a user invariant's sentinels.
var (
	errLost = errors.New("mirror lost a delete")
	errDup  = errors.New("mirror holds a key twice")
)

// TestSignatureDetails shows what a signature says differed. For
// same-outcome it is the resources and paths. For a user invariant it is
// the sentinels, whatever the text around them. A known finding narrowed
// to them matches those alone. A known finding of format 1 matches every
// detail.
func TestSignatureDetails(t *testing.T) {
	user := func(err error) error {
		inv := oracle.NewInvariant("mirror", "the mirror holds the truth", func(*history.Log, *observe.Observation) error { return err })
		got, _ := oracle.JudgeOne(inv, goodObservation(t))
		return got
	}
	diff := func(ref, got string) error {
		out := func(j string) oracle.FinalState {
			return oracle.FinalState{Resources: map[string]*oracle.ResourceFinalState{"configmaps": {Objects: map[string][]byte{"ns/a": []byte(j)}}}}
		}
		return oracle.DiffFinalState(out(ref), out(got), oracle.DefaultMaskSet())
	}
	knownV := mustKnown(t, "same-outcome{configmaps data.v}")
	knownLost := oracle.Known{Name: "lost", Invariants: []string{"mirror"}, Details: map[string][]string{"mirror": {oracle.ErrorDetail(errLost)}}}
	tests := []struct {
		name      string
		results   map[string]error
		want      string
		wantKnown map[string]bool // by known name
	}{
		{name: "details - same-outcome, one field - pass", results: map[string]error{"same-outcome": diff(`{"data":{"v":"1"}}`, `{"data":{"v":"2"}}`)},
			want: "same-outcome{configmaps data.v}", wantKnown: map[string]bool{knownV.Name: true}},
		{name: "details - same-outcome, another field - not known, fail", results: map[string]error{"same-outcome": diff(`{"data":{"w":"1"}}`, `{"data":{"w":"2"}}`)},
			want: "same-outcome{configmaps data.w}", wantKnown: map[string]bool{knownV.Name: false, "same-outcome": true}},
		{name: "details - same-outcome, the known field and another - not known, fail",
			results: map[string]error{"same-outcome": diff(`{"data":{"v":"1","w":"1"}}`, `{"data":{"v":"2","w":"2"}}`)},
			want:    "same-outcome{configmaps data.v; configmaps data.w}", wantKnown: map[string]bool{knownV.Name: false, "same-outcome": true}},
		{name: "details - a user sentinel, keys around it - pass", results: map[string]error{"mirror": user(fmt.Errorf("configmap ns/a: %w", errLost))},
			want: `mirror{"mirror lost a delete"}`, wantKnown: map[string]bool{"lost": true}},
		{name: "details - another user sentinel - not known, fail", results: map[string]error{"mirror": user(fmt.Errorf("configmap ns/b: %w", errDup))},
			want: `mirror{"mirror holds a key twice"}`, wantKnown: map[string]bool{"lost": false}},
		{name: "details - two sentinels joined - not known, fail", results: map[string]error{"mirror": user(errors.Join(errDup, fmt.Errorf("x: %w", errLost)))},
			want: `mirror{"mirror holds a key twice"; "mirror lost a delete"}`, wantKnown: map[string]bool{"lost": false}},
		{name: "details - a long sentinel, cut - pass", results: map[string]error{"mirror": user(fmt.Errorf("key: %w", errors.New(strings.Repeat("x", 130))))},
			want: `mirror{"` + strings.Repeat("x", 119) + `…"}`},
		{name: "details - an error wrapping no sentinel, a key in its text - none, pass", results: map[string]error{"mirror": user(fmt.Errorf("configmap ns/a lost at rv %d", 7))},
			want: "mirror"},
		{name: "details - a built-in invariant says none - pass", results: map[string]error{"converged": errors.New("store differs")}, want: "converged"},
	}
	knowns := map[string]oracle.Known{knownV.Name: knownV, "lost": knownLost, "same-outcome": mustKnown(t, "same-outcome")}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sig := oracle.SignatureOf(tc.results)
			if got := sig.String(); got != tc.want {
				t.Fatalf("signature: got %q, want %q", got, tc.want)
			}
			if back, err := oracle.ParseSignature(sig.String()); err != nil || back.String() != tc.want {
				t.Errorf("ParseSignature(%q): got %q, %v, want it back", sig, back, err)
			}
			for name, want := range tc.wantKnown {
				if got := knowns[name].Matches(sig); got != want {
					t.Errorf("known %s matches %s: got %v, want %v", name, sig, got, want)
				}
			}
		})
	}
}

// TestScopeUnsettled shows one rule for every invariant. An end-state one,
// built-in or the user's, is not judged on an unsettled run, and the
// outcome says why. One on behaviour along the way is judged.
func TestScopeUnsettled(t *testing.T) {
	never := func(*history.Log, *observe.Observation) error { return errors.New("my index differs from the truth") }
	endState := oracle.NewInvariant("my-index", "my index equals the truth's final state", never)
	along := oracle.NewInvariant("my-order", "my handler saw keys in order", never, oracle.WithScope(oracle.Along))
	tests := []struct {
		name          string
		inv           oracle.Invariant
		unsettled     bool
		wantBroken    bool
		wantNotJudged bool
	}{
		{name: "scope - user end-state invariant, settled run - judged, fail", inv: endState, wantBroken: true},
		{name: "scope - user end-state invariant, unsettled run - not judged, pass", inv: endState, unsettled: true, wantNotJudged: true},
		{name: "scope - user along invariant, unsettled run - judged, fail", inv: along, unsettled: true, wantBroken: true},
		{name: "scope - built-in converged, unsettled run - not judged, pass", inv: mustInvariant(t, "converged"), unsettled: true, wantNotJudged: true},
		{name: "scope - built-in no-time-travel, unsettled run - judged, pass", inv: mustInvariant(t, "no-time-travel"), unsettled: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := goodObservation(t)
			delete(o.Store, "ns/a")
			o.Unsettled, o.LastFaultAt, o.EndedAt, o.LiveBound = tc.unsettled, 30*60e9, 31*60e9, observe.DefaultLiveBound
			err, why := oracle.JudgeOne(tc.inv, o)
			if (err != nil) != tc.wantBroken {
				t.Errorf("result: got %v, want broken %v", err, tc.wantBroken)
			}
			if (why != "") != tc.wantNotJudged || (tc.wantNotJudged && !strings.Contains(why, "unsettled run")) {
				t.Errorf("not judged: got %q, want not judged %v (saying the run was unsettled)", why, tc.wantNotJudged)
			}
		})
	}
}

func mustInvariant(t *testing.T, name string) oracle.Invariant {
	t.Helper()
	inv, ok := oracle.LookupInvariant(name)
	if !ok {
		t.Fatalf("LookupInvariant(%q): got none", name)
	}
	return inv
}

// mustKnown is KnownSignature(text).
func mustKnown(t *testing.T, text string) oracle.Known {
	t.Helper()
	k, err := oracle.KnownSignature(text)
	if err != nil {
		t.Fatalf("KnownSignature(%q): got %v, want nil", text, err)
	}
	return k
}
