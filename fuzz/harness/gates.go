package harness

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	clientfeatures "k8s.io/client-go/features"
)

// Gates are client-go feature gates a run sets, by name
// (clientfeatures.Feature("AtomicFIFO"), ...). A gate not named keeps the
// process's value: client-go's default, or its KUBE_FEATURE_<name>
// environment variable. A gate the client-go in use does not know is an
// error (ErrUnknownGate). A fuzz input may turn some off (see InputLayout
// and Options.Gates).
type Gates map[clientfeatures.Feature]bool

// ErrUnknownGate is returned for a gate the client-go in use does not know.
var ErrUnknownGate = errors.New("unknown client-go feature gate")

// The list/watch gates by name: client-go's own constants exist only in
// the versions that know each gate (AtomicFIFO and
// UnlockWhileProcessingFIFO since v0.36).
const (
	GateAtomicFIFO                   clientfeatures.Feature = observe.GateAtomicFIFO
	GateInOrderInformersBatchProcess clientfeatures.Feature = "InOrderInformersBatchProcess"
	GateInformerResourceVersion      clientfeatures.Feature = "InformerResourceVersion"
	GateUnlockWhileProcessingFIFO    clientfeatures.Feature = "UnlockWhileProcessingFIFO"
	GateWatchListClient              clientfeatures.Feature = "WatchListClient"
)

// listWatchGates are the client-go gates that change list/watch behaviour,
// named in every report with the value the run had.
var listWatchGates = []clientfeatures.Feature{
	GateAtomicFIFO, GateInOrderInformersBatchProcess, GateInformerResourceVersion,
	GateUnlockWhileProcessingFIFO, GateWatchListClient,
}

// processGates are client-go's feature gates as the process started with
// them, before runs replace them with overrides.
var processGates = sync.OnceValue(clientfeatures.FeatureGates)

// KnownGate reports whether the client-go in use knows list/watch gate f.
func KnownGate(f clientfeatures.Feature) bool { return knownGates()[f] }

// knownGates are the list/watch gates the client-go in use knows.
var knownGates = sync.OnceValue(func() map[clientfeatures.Feature]bool {
	known := map[clientfeatures.Feature]bool{}
	for _, f := range listWatchGates {
		known[f] = knowsGate(processGates(), f)
	}
	return known
})

// knowsGate reports whether g knows gate f. Asked about a gate they do not
// know, client-go's gates panic, and they offer no other way to ask.
func knowsGate(g clientfeatures.Gates, f clientfeatures.Feature) (known bool) {
	defer func() {
		if recover() != nil {
			known = false
		}
	}()
	g.Enabled(f)
	return true
}

// CheckGates returns an ErrUnknownGate error for each gate of g the
// client-go in use does not know.
func CheckGates(g Gates) error {
	var errs []error
	for _, f := range slices.Sorted(maps.Keys(g)) {
		known, listed := knownGates()[f]
		if !listed {
			known = knowsGate(processGates(), f)
		}
		if !known {
			errs = append(errs, fmt.Errorf("%w: %s: client-go %s does not have it", ErrUnknownGate, f, ClientGoVersion()))
		}
	}
	return errors.Join(errs...)
}

// String renders the gates set, sorted: "AtomicFIFO=off".
func (g Gates) String() string {
	byName := make(map[string]bool, len(g))
	for k, v := range g {
		byName[string(k)] = v
	}
	return GatesText(byName)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// gateRegime lets runs set client-go's process-wide feature gates. Runs
// with the same gates run together. A run with other gates waits until
// they have ended. Once one waits, no new run of the current gates starts,
// so that none starves.
var gateRegime struct {
	once sync.Once
	mu   sync.Mutex
	cond *sync.Cond
	set  Gates // the gates the running runs set
	runs int   // runs under set
	wait int   // runs waiting for other gates
}

// overrides answers client-go's gate questions with the running runs'
// gates, and the process's otherwise.
type overrides struct{ base clientfeatures.Gates }

// Enabled reports whether key is enabled for the runs now running.
func (o overrides) Enabled(key clientfeatures.Feature) bool {
	gateRegime.mu.Lock()
	v, ok := gateRegime.set[key]
	gateRegime.mu.Unlock()
	if ok {
		return v
	}
	return o.base.Enabled(key)
}

// enterGates waits until the run may set g, sets it and returns the
// func that ends the run's hold. It must be called with QuietClientGo
// held (installing the overrides once makes client-go warn through its
// error handlers).
func enterGates(g Gates) (leave func()) {
	gateRegime.once.Do(func() {
		gateRegime.cond = sync.NewCond(&gateRegime.mu)
		clientfeatures.ReplaceFeatureGates(overrides{base: processGates()})
	})
	gateRegime.mu.Lock()
	defer gateRegime.mu.Unlock()
	same := maps.Equal(gateRegime.set, g)
	for gateRegime.runs > 0 && (!same || gateRegime.wait > 0) {
		gateRegime.wait++
		gateRegime.cond.Wait()
		gateRegime.wait--
		same = maps.Equal(gateRegime.set, g)
		if same && gateRegime.runs > 0 {
			break // joining the runs now under g
		}
	}
	gateRegime.set = g
	gateRegime.runs++
	var once sync.Once
	return func() {
		once.Do(func() {
			gateRegime.mu.Lock()
			defer gateRegime.mu.Unlock()
			gateRegime.runs--
			if gateRegime.runs == 0 {
				gateRegime.cond.Broadcast()
			}
		})
	}
}

// effectiveGates is what a run's list/watch gates were: g's, the process's
// for the others, and WatchListClient as the run's client path. A gate the
// client-go in use does not know is left out.
func effectiveGates(g Gates, watchList bool) map[string]bool {
	out := map[string]bool{}
	for _, f := range listWatchGates {
		if !knownGates()[f] {
			continue
		}
		v, ok := g[f]
		if !ok {
			v = processGates().Enabled(f)
		}
		out[string(f)] = v
	}
	out[string(GateWatchListClient)] = watchList
	return out
}

// GatesText renders effective gates, sorted: "AtomicFIFO=on ...".
func GatesText(g map[string]bool) string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(g)) {
		s = append(s, fmt.Sprintf("%s=%s", k, onOff(g[k])))
	}
	return strings.Join(s, " ")
}

// runGates are the gates a run sets: s.Gates and, for a target that
// follows the WatchListClient gate alone (Target.WatchListGate), that gate
// at the run's client path.
func runGates(s Spec) Gates {
	if !s.Target.WatchListGate || !KnownGate(GateWatchListClient) {
		return s.Gates
	}
	g := maps.Clone(s.Gates)
	if g == nil {
		g = Gates{}
	}
	g[GateWatchListClient] = s.WatchList
	return g
}
