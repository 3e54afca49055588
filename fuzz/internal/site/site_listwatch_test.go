package site

import "testing"

// TestSiteThroughControllerRuntimeListWatch shows a reflector's request
// sent through controller-runtime's ListWatch closures sited at the
// reflector, as through client-go's cache.ListWatch. So a manager's
// WatchList restart storm is kubernetes#140890's site. A reconciler's
// write through controller-runtime's client is sited at the reconciler,
// as one through client-go's generated clients.
func TestSiteThroughControllerRuntimeListWatch(t *testing.T) {
	tests := []struct {
		name   string
		frames []frame
		want   string
	}{
		{name: "site - a manager's reflector watch through controller-runtime's ListWatch - pass",
			frames: []frame{
				{fn: "k8s.io/client-go/rest.(*Request).Watch"},
				{fn: "sigs.k8s.io/controller-runtime/pkg/cache/internal.(*Informers).makeListWatcher.func6"},
				{fn: "sigs.k8s.io/controller-runtime/pkg/cache/internal.(*Informers).addInformerToMap.func2"},
				{fn: "k8s.io/client-go/tools/cache.(*ListWatch).WatchWithContext"},
				{fn: "k8s.io/client-go/tools/cache.(*Reflector).watchList"},
				{fn: "k8s.io/client-go/tools/cache.(*Reflector).ListAndWatchWithContext"},
			},
			want: "k8s.io/client-go/tools/cache.(*Reflector).watchList"},
		{name: "site - a reconciler's write through controller-runtime's client - pass",
			frames: []frame{
				{fn: "k8s.io/client-go/rest.(*Request).Do"},
				{fn: "sigs.k8s.io/controller-runtime/pkg/client.(*typedClient).Delete"},
				{fn: "sigs.k8s.io/controller-runtime/pkg/client.(*client).Delete"},
				{fn: "github.com/cert-manager/trust-manager/pkg/bundle/internal/target.(*Reconciler).CleanupTarget"},
				{fn: "github.com/cert-manager/trust-manager/pkg/bundle.(*bundle).reconcileBundle"},
			},
			want: "github.com/cert-manager/trust-manager/pkg/bundle/internal/target.(*Reconciler).CleanupTarget"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := siteOf(tc.frames); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
