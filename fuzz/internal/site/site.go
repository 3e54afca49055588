// Package site names where in a target's code a run went wrong: the
// innermost frame of a stack that is not client-go's, Go's or lwreplay's
// plumbing.
package site

import (
	"regexp"
	"runtime"
	"strings"
)

// A site is where a target went wrong, as a function name. It does not
// depend on the plan that led there, goroutine numbers, argument values or
// which closure of the function it was. It is the looping frame of a hot
// loop or request storm, the frame a panic was raised in, or the frame a
// goroutine left blocked waits in. A finding's Signature names it beside
// the broken invariants.

// plumbing are the prefixes of the functions a site is never in:
//   - the Go runtime and standard library;
//   - client-go's REST client, transports, generated clients and
//     informers, and controller-runtime's client;
//   - lwreplay's own harness.
//
// A request is sent, and a panic raised, through them on behalf of the
// code that went wrong.
var plumbing = []string{
	"runtime.", "runtime/debug.", "internal/", "sync.", "context.", "time.", "testing.", "io.", "net/", "crypto/",
	"golang.org/x/net/",
	"k8s.io/client-go/rest.", "k8s.io/client-go/transport", "k8s.io/client-go/util/",
	"k8s.io/client-go/kubernetes.", "k8s.io/client-go/kubernetes/typed/", "k8s.io/client-go/gentype.", "k8s.io/client-go/informers/",
	"k8s.io/client-go/listers/", "k8s.io/client-go/dynamic", "k8s.io/client-go/metadata",
	"k8s.io/client-go/tools/pager.",
	"k8s.io/client-go/tools/cache.(*ListWatch)", "k8s.io/client-go/tools/cache.NewFilteredListWatchFromClient",
	"k8s.io/client-go/tools/cache.NewListWatchFromClient", "k8s.io/client-go/tools/cache.listWatcherWithWatchListSemanticsWrapper",
	"k8s.io/client-go/tools/cache.(*listWatcherWithWatchListSemanticsWrapper)",
	"k8s.io/apimachinery/pkg/runtime", "k8s.io/apimachinery/pkg/util/runtime.", "k8s.io/klog",
	// controller-runtime's cache builds its informers' ListWatch from these
	// closures (informers.go): a reflector's request is client-go's, as
	// through cache.ListWatch
	"sigs.k8s.io/controller-runtime/pkg/cache/internal.(*Informers).makeListWatcher.func",
	"sigs.k8s.io/controller-runtime/pkg/cache/internal.(*Informers).addInformerToMap.func",
	// controller-runtime's client is to a reconciler what client-go's
	// generated clients are: a write is sent through it on behalf of the
	// reconciler that decided it
	"sigs.k8s.io/controller-runtime/pkg/client.",
	"github.com/lwreplay/lwreplay/replayer.", "github.com/lwreplay/lwreplay/replayer/", "github.com/lwreplay/lwreplay/recorder.",
	"github.com/lwreplay/lwreplay/internal/", "github.com/lwreplay/lwreplay/history.", "github.com/lwreplay/lwreplay/faults.",
}

// harness is the prefix of lwreplay's fuzz packages (fuzz, fuzz/harness,
// fuzz/level, ...). Their non-test files are plumbing: client levels,
// probe, request bound, built-in targets. Their test files are targets.
const harness = "github.com/lwreplay/lwreplay/fuzz"

// closureSuffix matches what Go appends to a function's name for its
// closures and goroutine wrappers: ".func2", ".func1.3", ".gowrap1".
var closureSuffix = regexp.MustCompile(`(\.(func|gowrap)\d+(\.\d+)*)+$`)

// siteName is a frame's function as a site names it: without closure
// suffixes and generic type arguments.
func siteName(fn string) string {
	if i := strings.Index(fn, "[...]"); i >= 0 {
		fn = fn[:i] + fn[i+len("[...]"):]
	}
	return closureSuffix.ReplaceAllString(fn, "")
}

// isPlumbing reports whether the frame of fn, in file, is plumbing.
func isPlumbing(fn, file string) bool {
	if strings.HasPrefix(fn, harness) {
		return !strings.HasSuffix(file, "_test.go")
	}
	if stdlib(fn) {
		return true
	}
	for _, p := range plumbing {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// frame is one function of a stack and its file.
type frame struct{ fn, file string }

// siteOf returns the innermost frame of frames (innermost first) that is
// not plumbing, as siteName names it. When the stack was taken while
// panicking, it looks past the panic's frames: the frames below
// runtime.gopanic are the recovering code's, not the site's. It returns ""
// when every frame is plumbing.
func siteOf(frames []frame) string {
	for i := len(frames) - 1; i >= 0; i-- {
		if frames[i].fn == "runtime.gopanic" || frames[i].fn == "panic" {
			frames = frames[i+1:]
			break
		}
	}
	for _, f := range frames {
		if !isPlumbing(f.fn, f.file) {
			return siteName(f.fn)
		}
	}
	return ""
}

// Callers returns the calling goroutine's program counters, from its
// caller's caller on (its innermost 48 frames: a site is never deeper).
func Callers() []uintptr {
	var pcs [48]uintptr
	n := runtime.Callers(3, pcs[:])
	return append([]uintptr(nil), pcs[:n]...)
}

// framesOf resolves pcs.
func framesOf(pcs []uintptr) []frame {
	var out []frame
	it := runtime.CallersFrames(pcs)
	for {
		f, more := it.Next()
		out = append(out, frame{fn: f.Function, file: f.File})
		if !more {
			return out
		}
	}
}

// CallerSite returns the site of the calling goroutine's stack.
func CallerSite() string {
	return siteOf(framesOf(Callers()))
}

// parseStack reads a stack as runtime.Stack, debug.Stack or cleanStack
// renders it into frames, innermost first.
func parseStack(stack string) []frame {
	var out []frame
	for _, line := range strings.Split(stack, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "" || t == "..." || strings.HasPrefix(t, "goroutine "):
		case strings.HasPrefix(line, "\t"):
			if n := len(out); n > 0 && out[n-1].file == "" {
				file := t
				if i := strings.LastIndex(file, ":"); i > 0 {
					file = file[:i]
				}
				out[n-1].file = file
			}
		default:
			t = strings.TrimPrefix(t, "created by ")
			if i := strings.Index(t, " in goroutine "); i > 0 {
				t = t[:i]
			}
			if i := strings.LastIndex(t, "("); i > 0 && strings.HasSuffix(t, ")") {
				t = t[:i] // the argument list: pkg.(*T).m(0xc000012345, ...)
			}
			out = append(out, frame{fn: t})
		}
	}
	return out
}

// stackSite returns the site of a rendered stack.
func stackSite(stack string) string {
	return siteOf(parseStack(stack))
}

// stdlib reports whether fn is of a standard library package. That is one
// whose import path's first element has no dot: "errors.Is",
// "encoding/json.Unmarshal", not "k8s.io/...", nor a program's main.
func stdlib(fn string) bool {
	first := fn
	if i := strings.IndexByte(first, '/'); i >= 0 {
		first = first[:i]
	} else if i := strings.IndexByte(first, '.'); i >= 0 {
		first = first[:i]
	}
	return first != "" && first != "main" && !strings.Contains(first, ".")
}

// OfPCs returns the site of a stack kept as program counters ("" for
// none).
func OfPCs(pcs []uintptr) string {
	if len(pcs) == 0 {
		return ""
	}
	return siteOf(framesOf(pcs))
}

// OfStack returns the site of a stack as runtime.Stack renders it.
func OfStack(stack string) string { return stackSite(stack) }
