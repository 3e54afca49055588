package fuzz

import "math/rand/v2"

// inputs deals fuzz inputs to campaigns in turn, round-robin: to each its
// own seeds first, then random inputs from one PCG source.
type inputs struct {
	seeds [][][]byte // per campaign, the seeds not dealt yet
	turn  int        // the campaign dealt to next
	r     *rand.Rand
}

// newInputs returns the inputs of campaigns whose seeds are seeds (one
// list per campaign), then the random ones of seed.
func newInputs(seeds [][][]byte, seed uint64) *inputs {
	in := &inputs{r: rand.New(rand.NewPCG(seed, 0x6c777265706c6179))}
	for _, s := range seeds {
		in.seeds = append(in.seeds, append([][]byte(nil), s...))
	}
	if len(in.seeds) == 0 {
		in.seeds = [][][]byte{nil}
	}
	return in
}

// next returns the index of the campaign whose turn it is and its input.
// That is a seed of its own while any is left, else a random one
// (RandomInput).
func (in *inputs) next() (campaign int, data []byte) {
	campaign = in.turn
	in.turn = (in.turn + 1) % len(in.seeds)
	if s := in.seeds[campaign]; len(s) > 0 {
		in.seeds[campaign] = s[1:]
		return campaign, s[0]
	}
	return campaign, RandomInput(in.r)
}
