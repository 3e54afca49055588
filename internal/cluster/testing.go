package cluster

import (
	"context"
	"errors"
	"testing"
)

// StartT starts a Cluster for a test or benchmark and stops it in
// t.Cleanup. It skips t, loudly, only when the binaries cannot be built on
// this machine (ErrBuild); any other failure fails t.
func StartT(t testing.TB, opts ...Option) *Cluster {
	t.Helper()
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
