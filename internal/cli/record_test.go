package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/recorder"
	"github.com/lwreplay/lwreplay/recorder/capture"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

// recordUpstream is synth's history of 15 configmaps and 15 pods in the
// namespaces "default" and "shop", then 60 changes.
func recordUpstream(t *testing.T) *history.History {
	t.Helper()
	f, err := synth.Generate(synth.GenerateOptions{Objects: 30, Events: 60, Seed: 5, Namespaces: 2})
	if err != nil {
		t.Fatal(err)
	}
	f.Path = "upstream.yaml"
	h, err := history.Build(f)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// serveUpstream serves h over HTTP on 127.0.0.1 until the test ends and
// returns the path of a kubeconfig for it.
func serveUpstream(t *testing.T, h *history.History) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := replayer.WriteKubeconfig(path, "http://"+l.Addr().String()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- replayer.New(h).Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("upstream: %v", err)
		}
	})
	return path
}

// finalState returns l's final state in namespace ns ("" for all).
func finalState(l *history.Log, ns string) []*history.Object {
	var out []*history.Object
	for _, o := range l.StateAt(l.End()) {
		if ns == "" || o.Namespace == ns {
			out = append(out, o)
		}
	}
	return out
}

// lastRVIn returns the resourceVersion of the newest change in ns ("" for
// all), or l's start.
func lastRVIn(l *history.Log, ns string) string {
	for i := l.End() - 1; i >= 0; i-- {
		if ns == "" || l.Events[i].Object.Namespace == ns {
			return l.Events[i].RV()
		}
	}
	return l.StartRV
}

// caughtUp reports whether every informer holds want's final state of ns.
func caughtUp(p capture.Progress, want *history.History, ns string) bool {
	for _, r := range p.Resources {
		l, ok := want.Log(history.Resource{Group: r.Target.GVR.Group, Version: r.Target.GVR.Version, Resource: r.Target.GVR.Resource})
		if !ok {
			return false
		}
		c, ok := l.Order().Compare(r.LastSyncRV, lastRVIn(l, ns))
		if !r.Synced || !ok || c < 0 || r.Objects != len(finalState(l, ns)) {
			return false
		}
	}
	return len(p.Resources) > 0
}

// compareFinal reports how got's final state in ns differs from want's.
func compareFinal(t *testing.T, want, got *history.History, ns string) {
	t.Helper()
	for _, wl := range want.Logs {
		gl, ok := got.Log(wl.Resource)
		if !ok {
			t.Errorf("resource %s: got no recorded log, want one", wl.Resource)
			continue
		}
		ws, gs := finalState(wl, ns), finalState(gl, "")
		if len(gs) != len(ws) {
			t.Errorf("resource %s: got %d objects in the final state, want %d", wl.Resource, len(gs), len(ws))
			continue
		}
		for i, w := range ws {
			g := gs[i]
			var wv, gv any
			if json.Unmarshal(w.Raw, &wv) != nil || json.Unmarshal(g.Raw, &gv) != nil || !reflect.DeepEqual(wv, gv) {
				t.Errorf("resource %s object %d: got %s, want %s", wl.Resource, i, g.Raw, w.Raw)
			}
		}
	}
}

func TestRecord(t *testing.T) {
	want := recordUpstream(t)
	kubeconfig := serveUpstream(t, want)
	recordProgressInterval = 20 * time.Millisecond
	t.Cleanup(func() { recordProgressInterval, recordProgressHook = time.Second, nil })
	tests := []struct {
		name      string
		args      []string
		namespace string // the namespace recorded; "" for all
		wantLists func(n int) bool
		wantDesc  string
	}{
		{"record - watchlist on - pass", []string{"-A", "--watchlist", "on"}, "", func(n int) bool { return n == 0 }, "none"},
		{"record - watchlist off - pass", []string{"-A", "--watchlist=off"}, "", func(n int) bool { return n == 1 }, "1"},
		{"record - pages of 7 - pass", []string{"-A", "--page-size", "7"}, "", func(n int) bool { return n >= 3 }, "at least 3"},
		{"record - one namespace by flag - pass", []string{"-n", "shop", "--watchlist", "off"}, "shop", func(n int) bool { return n == 1 }, "1"},
		{"record - the context's namespace - pass", []string{"--watchlist", "off"}, "default", func(n int) bool { return n == 1 }, "1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.yaml")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			recordProgressHook = func(p capture.Progress) {
				if caughtUp(p, want, tc.namespace) {
					cancel()
				}
			}
			args := append([]string{"record", "--kubeconfig", kubeconfig, "--resource", "cm,pods", "--duration", "60s", "-o", out}, tc.args...)
			code, stdout, stderr := runCLIContext(ctx, args...)
			if code != 0 {
				t.Fatalf("exit code: got %d, want 0; stderr %s", code, stderr)
			}
			for _, w := range []string{"recorded", out, "configmaps.v1", "pods.v1"} {
				if !strings.Contains(stdout, w) {
					t.Errorf("summary: got %q, want it to mention %q", stdout, w)
				}
			}
			files, err := cassette.LoadAll(out)
			if err != nil {
				t.Fatalf("load recorded cassette: %v", err)
			}
			got, err := history.Build(files...)
			if err != nil {
				t.Fatalf("build recorded history: %v", err)
			}
			compareFinal(t, want, got, tc.namespace)
			for _, l := range got.Logs {
				if !tc.wantLists(l.Lists) {
					t.Errorf("resource %s: got %d LIST pages recorded, want %s", l.Resource, l.Lists, tc.wantDesc)
				}
			}
		})
	}
}

func TestRecordDuration(t *testing.T) {
	kubeconfig := serveUpstream(t, recordUpstream(t))
	t.Run("record - duration ends the recording - pass", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out.yaml")
		code, stdout, stderr := runCLI("record", "--kubeconfig", kubeconfig, "--resource", "pods", "-A", "--duration", "300ms", "-o", out)
		if code != 0 {
			t.Fatalf("exit code: got %d, want 0; stderr %s", code, stderr)
		}
		if !strings.Contains(stdout, "pods.v1") {
			t.Errorf("summary: got %q, want it to mention pods.v1", stdout)
		}
	})
}

func TestRecordErrors(t *testing.T) {
	kubeconfig := serveUpstream(t, recordUpstream(t))
	dir := t.TempDir()
	out := filepath.Join(dir, "out.yaml")
	base := []string{"record", "--kubeconfig", kubeconfig, "--duration", "1ms"}
	tests := []errorCase{
		{"record - no resource - fail", []string{"record", "-o", out}, 2, "--resource R[,R...] is required"},
		{"record - no output - fail", []string{"record", "--resource", "pods"}, 2, "-o FILE is required"},
		{"record - positional argument - fail", []string{"record", "--resource", "pods", "-o", out, "pods"}, 2, "unexpected arguments"},
		{"record - unknown flag - fail", []string{"record", "--frob", "-o", out}, 2, "unknown flag: --frob"},
		{"record - bad watchlist mode - fail", []string{"record", "--resource", "pods", "-o", out, "--watchlist", "yes"}, 2, `--watchlist "yes"`},
		{"record - namespace and all namespaces - fail", []string{"record", "--resource", "pods", "-o", out, "-n", "a", "-A"}, 2, "exclude each other"},
		{"record - empty namespace - fail", []string{"record", "--resource", "pods", "-o", out, "--namespace", ""}, 2, "--namespace must not be empty"},
		{"record - negative duration - fail", []string{"record", "--resource", "pods", "-o", out, "--duration", "-1s"}, 2, "--duration must not be negative"},
		{"record - unparsable duration - fail", []string{"record", "--resource", "pods", "-o", out, "--duration", "soon"}, 2, "--duration"},
		{"record - negative page size - fail", []string{"record", "--resource", "pods", "-o", out, "--page-size", "-7"}, 2, "--page-size must not be negative"},
		{"record - zero flush interval - fail", []string{"record", "--resource", "pods", "-o", out, "--flush-interval", "0s"}, 2, "--flush-interval must be positive"},
		{"record - bad max size - fail", []string{"record", "--resource", "pods", "-o", out, "--max-size", "lots"}, 2, `--max-size "lots"`},
		{"record - zero max size - fail", []string{"record", "--resource", "pods", "-o", out, "--max-size", "0"}, 2, `--max-size "0"`},
		{"record - bad label selector - fail", []string{"record", "--resource", "pods", "-o", out, "-l", "a in (b"}, 2, "--selector"},
		{"record - bad field selector - fail", []string{"record", "--resource", "pods", "-o", out, "--field-selector", "a~b"}, 2, "--field-selector"},
		{"record - empty resource name - fail", []string{"record", "--resource", "pods,,cm", "-o", out}, 2, "empty resource name"},
		{"record - empty redact path - fail", []string{"record", "--resource", "pods", "-o", out, "--redact-field", ""}, 2, "--redact-field: empty path"},
		{"record - missing kubeconfig - fail", []string{"record", "--kubeconfig", filepath.Join(dir, "nope"), "--resource", "pods", "-o", out}, 1, "nope"},
		{"record - unknown context - fail", append(base, "--context", "nope", "--resource", "pods", "-o", out), 1, `"nope"`},
		{"record - unknown resource - fail", append(base, "--resource", "pods,frobs", "-o", out), 1, `unknown resource: "frobs": the server has no resource or kind of that name`},
		{"record - output not yaml, before connecting - fail", []string{"record", "--kubeconfig", filepath.Join(dir, "nope"), "--resource", "pods", "-o", filepath.Join(dir, "out.json")}, 2, "out.json: a cassette file name must end in .yaml"},
		{"record - unsupported redact path, before connecting - fail", []string{"record", "--kubeconfig", filepath.Join(dir, "nope"), "--resource", "pods", "-o", out, "--redact-field", ".items[0]"}, 2, "--redact-field"},
		{"record - redact path reaching the name - fail", append(base, "--resource", "pods", "-o", out, "--redact-field", ".metadata"), 2, "reaches .metadata.name"},
		{"record - empty kubeconfig path - fail", []string{"record", "--kubeconfig=", "--resource", "pods", "-o", out}, 2, "--kubeconfig: got an empty value"},
		{"record - empty context - fail", []string{"record", "--context=", "--resource", "pods", "-o", out}, 2, "--context must not be empty"},
		{"record - huge max size - fail", []string{"record", "--resource", "pods", "-o", out, "--max-size", "100Ei"}, 2, `--max-size "100Ei"`},
	}
	runErrorCases(t, tests)
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		name string
		n    int64
		want string
	}{
		{"format bytes - bytes - pass", 512, "512 B"},
		{"format bytes - kibibytes - pass", 1536, "1.5 KiB"},
		{"format bytes - mebibytes - pass", 64 << 20, "64.0 MiB"},
		{"format bytes - gibibytes - pass", 3 << 30, "3.0 GiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := formatBytes(tc.n); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// runCLIContext runs the command line under ctx.
func runCLIContext(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestProgressLine(t *testing.T) {
	pods := capture.Target{GVR: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}
	cms := capture.Target{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}}
	tests := []struct {
		name string
		p    capture.Progress
		want string
	}{
		{"progress line - syncing - pass", capture.Progress{
			Elapsed:   1500 * time.Millisecond,
			Resources: []capture.ResourceProgress{{Target: pods, Synced: true}, {Target: cms}},
			Stats:     recorder.Stats{Objects: 10, Events: 4, Bookmarks: 1, Bytes: 2048},
		}, "recording 1/2 synced: 10 objects, 4 events, 1 bookmarks, 2.0 KiB, 1s"},
		{"progress line - with errors - pass", capture.Progress{
			Elapsed:   3 * time.Second,
			Resources: []capture.ResourceProgress{{Target: pods, Synced: true}, {Target: cms, LastError: "forbidden"}},
			Stats:     recorder.Stats{Errors: 2},
		}, "recording 1/2 synced: 0 objects, 0 events, 0 bookmarks, 0 B, 3s, 2 errors; configmaps.v1: forbidden"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := progressLine(tc.p); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
