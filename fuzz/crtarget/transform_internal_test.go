package crtarget

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestStoreTransform picks the transform of a configmap by its namespace
// from cache options, as controller-runtime's defaultOpts resolves it:
// a namespace's own, then the kind's (ByObject), then DefaultNamespaces',
// then DefaultTransform. It is nil when none is set anywhere.
func TestStoreTransform(t *testing.T) {
	mark := func(name string) toolscache.TransformFunc {
		return func(in any) (any, error) {
			in.(*corev1.ConfigMap).Labels = map[string]string{"by": name}
			return in, nil
		}
	}
	cm := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	for _, tc := range []struct {
		name string
		opts cache.Options
		ns   string
		want string // the transform's name; "" none ran
	}{
		{name: "store transform - none set - none - pass", opts: cache.Options{}, ns: "a", want: ""},
		{name: "store transform - default only - default - pass", opts: cache.Options{DefaultTransform: mark("default")}, ns: "a", want: "default"},
		{name: "store transform - kind's over default - kind's - pass", opts: cache.Options{DefaultTransform: mark("default"),
			ByObject: map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {Transform: mark("kind")}}}, ns: "a", want: "kind"},
		{name: "store transform - other kind's - default - pass", opts: cache.Options{DefaultTransform: mark("default"),
			ByObject: map[client.Object]cache.ByObject{&corev1.Secret{}: {Transform: mark("kind")}}}, ns: "a", want: "default"},
		{name: "store transform - default namespace's over default - namespace's - pass", opts: cache.Options{DefaultTransform: mark("default"),
			DefaultNamespaces: map[string]cache.Config{"a": {Transform: mark("ns-a")}, "b": {}}}, ns: "a", want: "ns-a"},
		{name: "store transform - default namespace without one - default - pass", opts: cache.Options{DefaultTransform: mark("default"),
			DefaultNamespaces: map[string]cache.Config{"a": {Transform: mark("ns-a")}, "b": {}}}, ns: "b", want: "default"},
		{name: "store transform - all other namespaces' entry - its - pass", opts: cache.Options{
			DefaultNamespaces: map[string]cache.Config{"a": {}, metav1.NamespaceAll: {Transform: mark("others")}}}, ns: "z", want: "others"},
		{name: "store transform - kind's namespace over kind's - namespace's - pass", opts: cache.Options{
			ByObject: map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {Transform: mark("kind"),
				Namespaces: map[string]cache.Config{"a": {Transform: mark("kind-ns-a")}, "b": {}}}}}, ns: "a", want: "kind-ns-a"},
		// ByObject.Namespaces unset takes DefaultNamespaces' entries, whose
		// own transform comes first
		{name: "store transform - kind's namespaces unset, default namespace's - default namespace's - pass", opts: cache.Options{
			DefaultNamespaces: map[string]cache.Config{"a": {Transform: mark("ns-a")}, "b": {}},
			ByObject:          map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {Transform: mark("kind")}}}, ns: "a", want: "ns-a"},
		{name: "store transform - kind's namespaces unset, default namespace without one - kind's - pass", opts: cache.Options{
			DefaultNamespaces: map[string]cache.Config{"a": {Transform: mark("ns-a")}, "b": {}},
			ByObject:          map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {Transform: mark("kind")}}}, ns: "b", want: "kind"},
		{name: "store transform - kind's namespace without one, default namespace's - default namespace's - pass", opts: cache.Options{
			DefaultNamespaces: map[string]cache.Config{"a": {Transform: mark("ns-a")}},
			ByObject: map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {
				Namespaces: map[string]cache.Config{"a": {}}}}}, ns: "a", want: "ns-a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Scheme = clientgoscheme.Scheme
			fn := storeTransform(tc.opts, cm)
			if fn == nil {
				if tc.want != "" {
					t.Fatalf("got no transform, want %q", tc.want)
				}
				return
			}
			out, err := fn(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: tc.ns}})
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got := out.(*corev1.ConfigMap).Labels["by"]; got != tc.want {
				t.Errorf("got transform %q, want %q", got, tc.want)
			}
		})
	}
}
