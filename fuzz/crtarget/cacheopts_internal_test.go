package crtarget

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestOwnCacheOptions shows that what cache.New writes into a run's cache
// options leaves the options every run of a target starts from as they
// were. cache.New fills in ByObject's entries and their Namespaces.
func TestOwnCacheOptions(t *testing.T) {
	cm := &corev1.ConfigMap{}
	orig := cache.Options{
		DefaultNamespaces: map[string]cache.Config{"a": {}},
		ByObject:          map[client.Object]cache.ByObject{cm: {Namespaces: map[string]cache.Config{"b": {}}}},
	}
	for _, tc := range []struct {
		name  string
		write func(c cache.Options)
	}{
		{name: "cache options - a ByObject entry replaced - pass", write: func(c cache.Options) { c.ByObject[cm] = cache.ByObject{Label: labels.Everything()} }},
		{name: "cache options - a ByObject namespace added - pass", write: func(c cache.Options) { c.ByObject[cm].Namespaces["c"] = cache.Config{} }},
		{name: "cache options - a default namespace added - pass", write: func(c cache.Options) { c.DefaultNamespaces["d"] = cache.Config{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.write(ownCacheOptions(orig))
			if got := len(orig.DefaultNamespaces); got != 1 {
				t.Errorf("default namespaces: got %d, want 1", got)
			}
			if got := orig.ByObject[cm]; got.Label != nil || len(got.Namespaces) != 1 {
				t.Errorf("ByObject entry: got label %v and %d namespaces, want none and 1", got.Label, len(got.Namespaces))
			}
		})
	}
}
