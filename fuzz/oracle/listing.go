package oracle

import (
	"errors"
	"fmt"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

// ErrInconsistentList says a complete list held no state the truth had at
// its resourceVersion.
var ErrInconsistentList = errors.New("inconsistent list")

// stateSum digests l's state at pos as ViewOf digests a store.
func stateSum(l *history.Log, pos int) (keys int, sum uint64) {
	state := l.StateAt(pos)
	for _, o := range state {
		sum += observe.EntrySum(o.Key(), o.ResourceVersion)
	}
	return len(state), sum
}

func checkConsistentList(o *observe.Observation) error {
	if err := needTruth(o, ErrInconsistentList); err != nil {
		return err
	}
	if len(o.Listings) == 0 {
		return fmt.Errorf("%w: the target reported no complete list", ErrNotJudged)
	}
	var errs []error
	for i, li := range o.Listings {
		pos, err := o.TruthLog.Position(li.RV)
		if err != nil {
			continue // an RV the truth cannot place: nothing to judge
		}
		if keys, sum := stateSum(o.TruthLog, pos); sum != li.Sum || keys != li.Keys {
			errs = append(errs, fmt.Errorf("%w: list %d at %v, rv %s: %d objects, other keys or resourceVersions than the %d of the truth's state at that rv",
				ErrInconsistentList, i, li.At, li.RV, li.Keys, keys))
		}
	}
	return errors.Join(errs...)
}
