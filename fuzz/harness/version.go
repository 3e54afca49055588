package harness

import (
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"

	"k8s.io/client-go/tools/cache"
)

// clientGoModule is the module whose version runs name.
const clientGoModule = "k8s.io/client-go"

// ClientGoVersion returns the version of k8s.io/client-go built into this
// binary ("v0.37.2"). It reads it from the build information or, as a test
// binary records none, from the module cache path of client-go's source.
// It returns "unknown" when neither says (a vendored build).
func ClientGoVersion() string { return ModuleVersion(clientGoModule, cache.NewReflector) }

// ModuleVersion returns the version of module built into this binary, as
// ClientGoVersion does for client-go. It reads it from the build
// information, else from the module cache path of fn's source, fn being a
// function of that module. It returns "unknown" when neither says.
func ModuleVersion(module string, fn any) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := moduleVersion(info, module); v != "unknown" {
			return v
		}
	}
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func {
		return "unknown"
	}
	file, _ := runtime.FuncForPC(v.Pointer()).FileLine(0)
	return versionInPath(file, module)
}

// versionInPath reads module@version from a source file's path
// (".../k8s.io/client-go@v0.37.2/tools/cache/reflector.go"), or "unknown".
func versionInPath(file, module string) string {
	_, rest, ok := strings.Cut(file, module+"@")
	if !ok {
		return "unknown"
	}
	v, _, _ := strings.Cut(rest, "/")
	return v
}

// moduleVersion returns the version of module path in info (its
// replacement's, when replaced), or "unknown".
func moduleVersion(info *debug.BuildInfo, path string) string {
	for _, m := range info.Deps {
		if m.Path != path {
			continue
		}
		if m.Replace != nil && m.Replace.Version != "" {
			return m.Replace.Version
		}
		return m.Version
	}
	return "unknown"
}
