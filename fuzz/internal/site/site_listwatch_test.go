package site

import "testing"

// TestSiteThroughControllerRuntimeListWatch shows a reflector's request
// sent through controller-runtime's ListWatch closures sited at the
// reflector, as through client-go's cache.ListWatch. So a manager's
// WatchList restart storm is kubernetes#140890's site.
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
		{name: "site - a reconciler's own frame above controller-runtime's cache - pass",
			frames: []frame{
				{fn: "k8s.io/client-go/rest.(*Request).Do"},
				{fn: "sigs.k8s.io/controller-runtime/pkg/client.(*typedClient).Delete"},
			},
			want: "sigs.k8s.io/controller-runtime/pkg/client.(*typedClient).Delete"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := siteOf(tc.frames); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
