package oracle

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/lwreplay/lwreplay/internal/testutil"
)

// BenchmarkDiffFinalState is the cost of same-outcome's comparison of a
// run's end state with its reference: 30 configmaps and 30 pods, each
// written by the run as by the reference (so their uid, resourceVersion
// and creationTimestamp differ, the rest equal). That is no difference
// once masked: the common case, judged at the end of every run.
func BenchmarkDiffFinalState(b *testing.B) {
	h := testutil.SynthHistory(b, 30, 0)
	ref, got := FinalState{Resources: map[string]*ResourceFinalState{}}, FinalState{Resources: map[string]*ResourceFinalState{}}
	for _, l := range h.Logs {
		r, g := &ResourceFinalState{Objects: map[string][]byte{}}, &ResourceFinalState{Objects: map[string][]byte{}}
		for i, o := range l.Initial {
			r.Objects[o.Key()] = o.Raw
			raw := bytes.Replace(o.Raw, []byte(o.UID), []byte(fmt.Sprintf("00000000-0000-0000-0000-%012d", i)), 1)
			g.Objects[o.Key()] = bytes.Replace(raw, []byte(`"resourceVersion":"`), []byte(`"resourceVersion":"9`), 1)
		}
		ref.Resources[l.Resource.Name()], got.Resources[l.Resource.Name()] = r, g
	}
	m := DefaultMaskSet()
	b.ReportAllocs()
	for b.Loop() {
		if err := DiffFinalState(ref, got, m); err != nil {
			b.Fatalf("DiffFinalState: got %v, want no difference under the masks", err)
		}
	}
}
