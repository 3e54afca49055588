package fuzz

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/targets"
)

func TestTargetNames(t *testing.T) {
	t.Parallel()
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, target := range targets.Builtin {
		t.Run("target "+target.Name+" - named, documented, found by name - pass", func(t *testing.T) {
			if !kebab.MatchString(target.Name) {
				t.Errorf("name: got %q, want kebab-case", target.Name)
			}
			if seen[target.Name] {
				t.Errorf("name %q: got a duplicate, want unique", target.Name)
			}
			seen[target.Name] = true
			if target.Doc == "" || target.Run == nil {
				t.Errorf("doc, run: got %q, %v, want both set", target.Doc, target.Run != nil)
			}
			if got, ok := targets.Lookup(target.Name); !ok || got.Name != target.Name {
				t.Errorf("targets.Lookup(%q): got %q, %v, want the target", target.Name, got.Name, ok)
			}
		})
	}
	for _, name := range controllerTargets {
		t.Run("target "+name+" - built in - pass", func(t *testing.T) {
			if _, ok := targets.Lookup(name); !ok {
				t.Errorf("targets.Lookup(%q): got none, want a built-in target", name)
			}
		})
	}
}

// TestControllerTargetsHoldOnSeeds runs each controller target and each
// consumer target at both levels. It runs every seed (no fault, both
// client paths) of every shipped cassette, for each resource the cassettes
// recorded. Every invariant holds.
func TestControllerTargetsHoldOnSeeds(t *testing.T) {
	t.Parallel()
	recorded, err := RecordedResources(Glob("../cassettes/*.yaml"))
	if err != nil {
		t.Fatalf("RecordedResources: got error %v, want none", err)
	}
	for _, name := range append(append([]string(nil), controllerTargets...), consumerTargets...) {
		target, _ := targets.Lookup(name)
		for _, r := range recorded {
			for _, lvl := range []level.Level{level.Typed, level.Wire} {
				c, err := NewCampaign(Options{Cassettes: r.Cassettes, Resource: r.Resource, Target: target, Level: lvl})
				if err != nil {
					t.Fatalf("NewCampaign: got error %v, want none", err)
				}
				for _, seed := range c.Seeds() {
					t.Run(fmt.Sprintf("%s - %s, %s, %s, input %q - every invariant holds - pass", name, r.Resource, lvl, c.Cassettes()[seed[0]], seed), func(t *testing.T) {
						if out := c.Check(t, seed); out.Report != "" {
							t.Errorf("report: got\n%s\nwant none", out.Report)
						}
					})
				}
			}
		}
	}
}

// TestControllerTargetsHoldUnderOneShotFaults runs each controller target
// under every legal one-shot fault, at a few early decision points, on the
// recorded cassettes. It uses both client paths, with every combination of
// the gates input byte 1 can turn off. client-go's code is correct there,
// so every invariant holds. A typed-level violation is re-run at the wire
// level before it counts, as in a campaign.
func TestControllerTargetsHoldUnderOneShotFaults(t *testing.T) {
	t.Parallel()
	// byte 1: the client path (bit 0), AtomicFIFO off (bit 1),
	// InOrderInformersBatchProcess off (bit 2)
	points, paths := []int{0, 1, 3}, []byte{0, 1, 2, 3, 4, 5, 6, 7}
	if testing.Short() {
		points, paths = []int{1}, []byte{0, 1}
	}
	choices := legalChoices()
	for _, name := range controllerTargets {
		target, _ := targets.Lookup(name)
		c, err := NewCampaign(Options{Cassettes: realCassettes, Target: target})
		if err != nil {
			t.Fatalf("NewCampaign: got error %v, want none", err)
		}
		t.Run(name+" - every legal one-shot fault - every invariant holds - pass", func(t *testing.T) {
			runs := 0
			for ci := range c.Cassettes() {
				for _, path := range paths {
					for _, at := range points {
						for _, b := range choices {
							in := append(append([]byte{byte(ci), path}, make([]byte, at)...), b)
							out := c.Check(t, in)
							runs++
							if out.Failed() {
								t.Errorf("input %q: got\n%s\nwant every invariant to hold", in, out.Report)
							}
						}
					}
				}
			}
			t.Logf("%d runs", runs)
		})
	}
}

// controllerTargets are the targets built as controllers build informers:
//   - informer-watch-error-handler: with a custom watch error handler;
//   - informer-transform: with a transform that strips managedFields;
//   - leader-election: with candidates electing a leader beside the
//     informer.
var controllerTargets = []string{"informer-resync", "informer-late-handler", "informer-watch-error-handler", "informer-transform", "factory-shared", "leader-election"}

// consumerTargets are the targets of client-go's other list/watch
// consumers: a RetryWatcher's, a pager's, UntilWithSync's, an indexer
// informer watcher's, metadata and dynamic informers.
var consumerTargets = []string{"retry-watcher", "list-pager", "until-with-sync", "indexer-informer-watcher", "metadata-informer", "dynamic-informer"}

// legalChoices returns one fault byte per legal (fault, parameters)
// choice of faults.Decode.
func legalChoices() []byte {
	var out []byte
	seen := map[string]bool{}
	for b := faults.FirstFaultByte; b < faults.FirstPersistentByte; b++ {
		p := faults.Decode([]byte{byte(b)}).Only(faults.Legal)
		if len(p.Decisions) == 0 || seen[p.String()] {
			continue
		}
		seen[p.String()] = true
		out = append(out, byte(b))
	}
	return out
}
