package history

import "os"

// SetSpillAt sets the JSON size from which a build keeps objects' JSON in
// a mapped file, and returns a function restoring it.
func SetSpillAt(n int64) (restore func()) {
	old := spillAt
	spillAt = n
	return func() { spillAt = old }
}

// SetCheckpointEvery sets the events between l's checkpoints (see
// checkpointEvery), before l's first StateAt.
func SetCheckpointEvery(l *Log, n int) { l.states.every = n }

// CheckpointsKept returns how many checkpoints of l StateAt has kept.
func CheckpointsKept(l *Log) int {
	l.states.mu.Lock()
	defer l.states.mu.Unlock()
	n := 0
	for _, c := range l.states.checkpoints {
		if c != nil {
			n++
		}
	}
	return n
}

// SetCreateSpill replaces how a build makes its temporary file, and
// returns a function restoring it.
func SetCreateSpill(create func() (*os.File, error)) (restore func()) {
	old := createSpill
	createSpill = create
	return func() { createSpill = old }
}
