package harness

import (
	"runtime/debug"
	"testing"

	"github.com/lwreplay/lwreplay/internal/testutil"
)

func TestModuleVersion(t *testing.T) {
	info := &debug.BuildInfo{Deps: []*debug.Module{
		{Path: "k8s.io/api", Version: "v0.37.2"},
		{Path: "k8s.io/client-go", Version: "v0.37.2"},
		{Path: "k8s.io/apimachinery", Version: "v0.37.2", Replace: &debug.Module{Path: "../apimachinery", Version: ""}},
		{Path: "example.com/replaced", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v1.0.1"}},
	}}
	tests := []struct {
		name   string
		module string
		want   string
	}{
		{name: "module version - a dependency - its version - pass", module: "k8s.io/client-go", want: "v0.37.2"},
		{name: "module version - replaced by a path - the required version - pass", module: "k8s.io/apimachinery", want: "v0.37.2"},
		{name: "module version - replaced by a version - the replacement's - pass", module: "example.com/replaced", want: "v1.0.1"},
		{name: "module version - not a dependency - unknown - pass", module: "example.com/none", want: "unknown"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := moduleVersion(info, tc.module); got != tc.want {
				t.Errorf("moduleVersion(%q): got %q, want %q", tc.module, got, tc.want)
			}
		})
	}
	for _, tc := range []struct{ file, want string }{
		{"/root/go/pkg/mod/k8s.io/client-go@v0.37.2/tools/cache/reflector.go", "v0.37.2"},
		{"k8s.io/client-go@v0.36.6/tools/cache/reflector.go", "v0.36.6"},
		{"/src/vendor/k8s.io/client-go/tools/cache/reflector.go", "unknown"},
	} {
		if got := versionInPath(tc.file, clientGoModule); got != tc.want {
			t.Errorf("versionInPath(%q): got %q, want %q", tc.file, got, tc.want)
		}
	}
	if got, want := ClientGoVersion(), testutil.SelectedVersion(t, clientGoModule); got != want {
		t.Errorf("ClientGoVersion: got %q, want the %s this module selects", got, want)
	}
}
