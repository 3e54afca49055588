package site

import (
	"strings"
	"testing"
)

func TestStackSite(t *testing.T) {
	reflectorStorm := strings.Join([]string{
		"net/http.(*Client).Do", "\t/go/src/net/http/client.go:590",
		"k8s.io/client-go/rest.(*Request).Watch", "\t/mod/k8s.io/client-go@v0.37.2/rest/request.go:745",
		"k8s.io/client-go/kubernetes/typed/core/v1.(*configMaps).Watch", "\t/mod/k8s.io/client-go@v0.37.2/kubernetes/typed/core/v1/configmap.go:70",
		"k8s.io/client-go/tools/cache.(*ListWatch).WatchWithContext", "\t/mod/k8s.io/client-go@v0.37.2/tools/cache/listwatch.go:210",
		"k8s.io/client-go/tools/cache.(*Reflector).watchList.func1", "\t/mod/k8s.io/client-go@v0.37.2/tools/cache/reflector.go:840",
		"k8s.io/client-go/tools/cache.(*Reflector).watchList", "\t/mod/k8s.io/client-go@v0.37.2/tools/cache/reflector.go:863",
		"k8s.io/client-go/tools/cache.(*Reflector).ListAndWatchWithContext", "\t/mod/k8s.io/client-go@v0.37.2/tools/cache/reflector.go:400",
	}, "\n")
	runtimeStack := strings.Join([]string{
		"goroutine 31 [select, synctest bubble 7]:",
		"k8s.io/client-go/tools/cache.(*processorListener).run.func1()",
		"\t/mod/k8s.io/client-go@v0.37.2/tools/cache/shared_informer.go:1044 +0x8f",
		"k8s.io/apimachinery/pkg/util/wait.BackoffUntil.func1(0xc000123456?)",
		"\t/mod/k8s.io/apimachinery@v0.37.2/pkg/util/wait/backoff.go:233 +0x33",
		"created by k8s.io/client-go/tools/cache.(*processorListener).add in goroutine 12",
		"\t/mod/k8s.io/client-go@v0.37.2/tools/cache/shared_informer.go:950 +0x1a",
	}, "\n")
	whilePanicking := strings.Join([]string{
		"github.com/lwreplay/lwreplay/fuzz.(*Probe).Panic", "\t/src/lwreplay/fuzz/probe.go:48",
		"example.com/ctrl.(*Mirror).recovering.func1.1", "\t/src/ctrl/mirror.go:176",
		"panic({0x1234, 0x5678})", "\t/go/src/runtime/panic.go:785 +0x132",
		"runtime.panicdottypeE(...)", "\t/go/src/runtime/iface.go:275",
		"example.com/ctrl.(*Mirror).handleDelete(0xc0000a2000, {0x1, 0x2})", "\t/src/ctrl/mirror.go:150 +0x1f",
		"example.com/ctrl.(*Mirror).Run.func2()", "\t/src/ctrl/mirror.go:100",
	}, "\n")
	testConsumer := strings.Join([]string{
		"github.com/lwreplay/lwreplay/fuzz.(*requestBound).RoundTrip", "\t/src/lwreplay/fuzz/bound.go:140",
		"github.com/lwreplay/lwreplay/fuzz.TestHotLoopEndsTheRun.func1", "\t/src/lwreplay/fuzz/bound_test.go:31",
	}, "\n")
	spinning := strings.Join([]string{
		"goroutine 77 [runnable, synctest bubble 3]:",
		"errors.Is({0x1b2c3d0, 0xc0001a2b30}, {0x1b2c3d0, 0x2a5e0c0})", "\t/go/src/errors/wrap.go:48 +0x8c",
		"sigs.k8s.io/controller-runtime/pkg/manager.(*runnableGroup).Start.func1()", "\t/mod/sigs.k8s.io/controller-runtime@v0.23.3/pkg/manager/runnable_group.go:194 +0x2b1",
		"sync.(*Once).doSlow(0x0?, 0x0?)", "\t/go/src/sync/once.go:78 +0xab",
		"sigs.k8s.io/controller-runtime/pkg/manager.(*runnableGroup).Start(0xc000246000, {0x1b3f2e8, 0xc0004a6000})", "\t/mod/sigs.k8s.io/controller-runtime@v0.23.3/pkg/manager/runnable_group.go:174 +0x6f",
	}, "\n")
	tests := []struct {
		name, stack, want string
	}{
		{"site - spinning in a standard library call - its caller, the loop - pass", spinning,
			"sigs.k8s.io/controller-runtime/pkg/manager.(*runnableGroup).Start"},
		{"site - reflector restarting WatchList streams - the looping frame, closure trimmed - pass", reflectorStorm,
			"k8s.io/client-go/tools/cache.(*Reflector).watchList"},
		{"site - runtime.Stack of a left goroutine - first frame past plumbing - pass", runtimeStack,
			"k8s.io/client-go/tools/cache.(*processorListener).run"},
		{"site - taken while panicking - the panic's site, not the recovering code - pass", whilePanicking,
			"example.com/ctrl.(*Mirror).handleDelete"},
		{"site - a consumer in the fuzz package's tests - its frame, the harness skipped - pass", testConsumer,
			"github.com/lwreplay/lwreplay/fuzz.TestHotLoopEndsTheRun"},
		{"site - only plumbing - none - pass", "net/http.(*Client).Do\n\t/go/src/net/http/client.go:590", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := stackSite(tc.stack); got != tc.want {
				t.Errorf("stackSite: got %q, want %q", got, tc.want)
			}
		})
	}
}
