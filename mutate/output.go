package mutate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lwreplay/lwreplay/cassette"
)

// stage is where a run records its reproducer until the run has
// succeeded. It is a temporary directory beside the output, whose files
// are renamed into place at the end. So no run leaves a partial
// reproducer, even one killed midway. The directory's name starts with a
// dot and does not end in .yaml, so no loader takes it for cassettes.
type stage struct {
	dir string // the temporary directory
	out string // the reproducer's path
}

// newStage makes the temporary directory for a reproducer at out.
func newStage(out string) (*stage, error) {
	if !strings.HasSuffix(out, ".yaml") || filepath.Base(out) == ".yaml" {
		return nil, fmt.Errorf("%w: %q: a cassette file name must end in .yaml", cassette.ErrFormat, out)
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("reproducer %s: %w", out, err)
	}
	dir, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("reproducer %s: %w", out, err)
	}
	return &stage{dir: dir, out: out}, nil
}

// path is where the recorder writes: out's name in the stage.
func (s *stage) path() string { return filepath.Join(s.dir, filepath.Base(s.out)) }

// commit renames the files recorded in the stage into out's directory.
// It removes parts of an earlier reproducer at out that this one does
// not replace; they would be taken for its next parts. Then it removes
// the stage. It returns the reproducer's files.
func (s *stage) commit(recorded []string) ([]string, error) {
	defer s.discard()
	var done []string
	for _, f := range recorded {
		to := filepath.Join(filepath.Dir(s.out), filepath.Base(f))
		if err := os.Rename(f, to); err != nil {
			return nil, errors.Join(fmt.Errorf("reproducer %s: %w", s.out, err), removeAll(done))
		}
		done = append(done, to)
	}
	for n := max(len(done), 1); ; n++ {
		if err := os.Remove(cassette.RotatedName(s.out, n)); errors.Is(err, fs.ErrNotExist) {
			break
		} else if err != nil {
			return done, fmt.Errorf("reproducer %s: remove a part of an earlier one: %w", s.out, err)
		}
	}
	return done, nil
}

// discard removes the stage and whatever is in it.
func (s *stage) discard() { os.RemoveAll(s.dir) }
