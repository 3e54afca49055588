package cluster

import (
	"context"
	"errors"
	"testing"
)

// StartT starts a Cluster for a test or benchmark and stops it in
// t.Cleanup. Under go test -short it skips t quietly (SkipShort). Otherwise
// it skips t, loudly, only when the binaries cannot be built on this
// machine (ErrBuild). Any other failure fails t.
func StartT(t testing.TB, opts ...Option) *Cluster {
	t.Helper()
	SkipShort(t)
	c, err := Start(context.Background(), opts...)
	if err != nil {
		Skip(t, err)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// Skip skips t with a loud message if err says the cluster binaries cannot
// be built here, and does nothing otherwise.
func Skip(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrBuild) {
		t.Skipf("SKIPPED: cannot build/start kube-apiserver %s + etcd %s: %v", KubeVersion, EtcdVersion, err)
	}
}

// SkipShort skips t under go test -short, the tier that runs the unit and
// replay tests and no real cluster. A test or benchmark calls it before
// anything that builds or starts one. The skip is the tier's intent, not a
// problem, so it says so only in verbose output.
func SkipShort(t testing.TB) {
	t.Helper()
	skipShort(t, testing.Short())
}

// shortSkip is SkipShort's message.
const shortSkip = "needs a real kube-apiserver and etcd; -short runs none"

// skipShort skips t if short is set.
func skipShort(t testing.TB, short bool) {
	t.Helper()
	if short {
		t.Skip(shortSkip)
	}
}
