package fuzz

import (
	"maps"
	"math/rand/v2"
	"time"

	clientfeatures "k8s.io/client-go/features"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
)

// InputLayout is the version of the fuzz-input byte layout Input reads and
// writes. go test's corpus files (testdata/fuzz), libFuzzer's crash files,
// the lwreplay fuzz command and every report's input share it. Layout 1,
// this file's, is the only one. TestInputLayout holds it, so an input
// saved today means the same run on every later lwreplay. A layout that
// changes what a byte means gets a new number, and inputs of the old one
// are read as the old one read them.
//
//	byte 0    the cassette: its index in the campaign's cassettes, modulo their count
//	byte 1    bit 0: the client path (1 WatchList, 0 LIST+WATCH); bit 1: client-go's
//	          AtomicFIFO gate off; bit 2: InOrderInformersBatchProcess off; bits 3–7
//	          unused. Absent: WatchList, and the gates as the process has them.
//	bytes 2…  the fault plan, one byte a decision point (faults.Decode)
const InputLayout = 1

const (
	// cassetteByte, pathByte and planFrom are where an input's parts are.
	cassetteByte = 0
	pathByte     = 1
	planFrom     = 2
	// watchListBit is the client-path bit of the path byte; the gate bits
	// follow it, one per inputGates entry.
	watchListBit = 1
)

// inputGates are the gates a fuzz input turns off, in bit order from the
// path byte's second bit. The bits keep their meaning on every client-go
// version; one whose gate the client-go in use does not know is ignored.
var inputGates = []clientfeatures.Feature{harness.GateAtomicFIFO, harness.GateInOrderInformersBatchProcess}

// seedGatesOff returns the gates the no-fault seeds turn off: none, then
// (unless fixed names some) every gate an input can turn off.
func seedGatesOff(fixed Gates) [][]clientfeatures.Feature {
	if len(fixed) > 0 {
		return [][]clientfeatures.Feature{nil}
	}
	return [][]clientfeatures.Feature{nil, inputGates}
}

// gateBit is the path-byte bit that turns inputGates[i] off.
func gateBit(i int) byte { return watchListBit << (i + 1) }

// Input is what the bytes of one fuzz input say, before a campaign's
// options apply to them. Options.WatchList and Options.Gates fix a part;
// AllowBreaking keeps breaking faults.
type Input struct {
	// Cassette is byte 0: the cassette's index, modulo the campaign's
	// count.
	Cassette byte
	// WatchList is the client path.
	WatchList bool
	// GatesOff are the client-go gates the input turns off, in
	// inputGates order.
	GatesOff []clientfeatures.Feature
	// Plan are the plan bytes (faults.Decode reads them).
	Plan []byte
}

// DecodeInput reads data in the input layout (see InputLayout). Any bytes
// are an input: missing ones mean the first cassette, the WatchList path,
// the process's gates and no fault.
func DecodeInput(data []byte) Input {
	in := Input{WatchList: true}
	if len(data) > cassetteByte {
		in.Cassette = data[cassetteByte]
	}
	if len(data) > pathByte {
		b := data[pathByte]
		in.WatchList = b&watchListBit != 0
		for i, g := range inputGates {
			if b&gateBit(i) != 0 {
				in.GatesOff = append(in.GatesOff, g)
			}
		}
	}
	if len(data) > planFrom {
		in.Plan = append([]byte(nil), data[planFrom:]...)
	}
	return in
}

// CanonicalInput returns data in its shortest form, the one reports print
// and save: the path byte without its unused bits, each plan byte as
// faults.CanonicalBytes writes it. It runs as data does. It keeps that
// meaning on every later lwreplay, which a fault byte past the end of
// today's choice table would not.
func CanonicalInput(data []byte) []byte {
	in := DecodeInput(data)
	in.Plan = faults.CanonicalBytes(in.Plan)
	return in.Bytes()
}

// Bytes returns in in the input layout; DecodeInput gives in back.
func (in Input) Bytes() []byte {
	b := byte(0)
	if in.WatchList {
		b = watchListBit
	}
	for i, g := range inputGates {
		for _, off := range in.GatesOff {
			if off == g {
				b |= gateBit(i)
			}
		}
	}
	return append([]byte{in.Cassette, b}, in.Plan...)
}

// inputFor returns the input whose run is in (nil when in's plan has no
// byte form: faults.Encode).
func inputFor(in input) []byte {
	enc, err := faults.Encode(in.plan)
	if err != nil {
		return nil
	}
	out := Input{Cassette: byte(in.cassette), WatchList: in.watchList, Plan: enc}
	for _, g := range inputGates {
		if on, set := in.gates[g]; set && !on {
			out.GatesOff = append(out.GatesOff, g)
		}
	}
	return out.Bytes()
}

// input is what one fuzz input means to a campaign.
type input struct {
	// cassette is the index of the cassette to replay.
	cassette int
	// watchList is the client path.
	watchList bool
	// gates are the client-go gates the run sets.
	gates Gates
	// plan is the fault plan, filtered to legal faults unless breaking
	// ones are allowed.
	plan faults.Plan
	// deadline is the real time its runs must end by (zero: none): a
	// fuzzing worker's input budget. It is not part of the input's bytes.
	deadline time.Time
}

// decodeInput reads a fuzz input over n cassettes, as o has the campaign
// read it (see Run).
func decodeInput(data []byte, n int, o Options) input {
	raw := DecodeInput(data)
	var in input
	if n > 0 {
		in.cassette = int(raw.Cassette) % n
	}
	in.watchList = raw.WatchList
	if o.WatchList != nil {
		in.watchList = *o.WatchList
	}
	in.gates = maps.Clone(o.Gates)
	for _, g := range raw.GatesOff {
		if _, fixed := o.Gates[g]; fixed || !harness.KnownGate(g) {
			continue
		}
		if in.gates == nil {
			in.gates = Gates{}
		}
		in.gates[g] = false
	}
	in.plan = hostable(faults.Decode(raw.Plan), o)
	return in
}

// hostable is p as a campaign of o runs it: its legal decisions unless
// breaking ones are allowed, and none of opaque-rv beside actors. The
// replay takes no write under opaque-rv (its write engine numbers
// resourceVersions), and the cluster's controllers write: a real cluster
// whose resourceVersions are opaque still takes their writes.
func hostable(p faults.Plan, o Options) faults.Plan {
	if !o.AllowBreaking {
		p = p.Only(faults.Legal)
	}
	if len(o.Actors) > 0 {
		p = p.Without(faults.OpaqueRV)
	}
	return p
}

// MaxRandomPlanBytes is the most plan bytes RandomInput gives an input.
const MaxRandomPlanBytes = 8

// persistentOdds is how rare a persistent decision is among a random
// input's decisions: one in this many. A run with one lasts to its hard
// end and costs tens of ordinary runs. At one in 64 the default run keeps
// above 1,000 runs/s and still finds a persistent-fault bug within
// seconds. One in 16 halved the rate.
const persistentOdds = 64

// RandomInput returns a random input of r: a random cassette byte, a
// random path byte and 0 to MaxRandomPlanBytes plan bytes. Half of the
// plan bytes are normal points, the rest decisions at one point. One
// decision in persistentOdds is persistent. One that holds to the run's
// end keeps it from ending early, so most runs have none.
func RandomInput(r *rand.Rand) []byte {
	b := make([]byte, planFrom+r.IntN(MaxRandomPlanBytes+1))
	b[cassetteByte], b[pathByte] = byte(r.UintN(256)), byte(r.UintN(256))
	for i := planFrom; i < len(b); i++ {
		switch {
		case r.IntN(2) == 0:
			b[i] = byte(r.UintN(faults.FirstFaultByte))
		case r.IntN(persistentOdds) == 0:
			b[i] = byte(faults.FirstPersistentByte + r.UintN(0x100-faults.FirstPersistentByte))
		default:
			b[i] = byte(faults.FirstFaultByte + r.UintN(faults.FirstPersistentByte-faults.FirstFaultByte))
		}
	}
	return b
}
