package replayer

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/faults"
)

// TestCrashAfterWriteWire writes three configmaps under crash-after-write.
// With a crash function, the fault fires once the write it names is
// answered, and calls it once. The write is stored and its answer still
// sent; the runner of the target drops it. Without one it does not act.
func TestCrashAfterWriteWire(t *testing.T) {
	tests := []struct {
		name      string
		plan      string
		withCrash bool
		crashedAt int // the write after which crash was called (0: never)
		fired     []string
	}{
		{name: "crash-after-write - write #2 - the crash follows its answer - pass", plan: "crash-after-write:write=2", withCrash: true,
			crashedAt: 2, fired: []string{"write #2 crash-after-write: key a/made-2"}},
		{name: "crash-after-write - at point 1 of the resource, a write - pass", plan: "crash-after-write:at=1", withCrash: true,
			crashedAt: 2, fired: []string{"write #2 crash-after-write: key a/made-2"}},
		{name: "crash-after-write - no crash function - does not act - pass", plan: "crash-after-write:write=2",
			fired: []string{}},
		{name: "crash-after-write - write #4 of three - never fires - pass", plan: "crash-after-write:write=4", withCrash: true,
			fired: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := faults.ParseText(tc.plan)
			if err != nil {
				t.Fatalf("plan %q: got error %v, want none", tc.plan, err)
			}
			written, crashedAt, calls := 0, 0, 0
			opts := []Option{WithPlan(plan)}
			if tc.withCrash {
				opts = append(opts, WithHooks(Hooks{TargetCrash: func() { calls++; crashedAt = written + 1 }}))
			}
			s := New(listHistory(t), opts...)
			cms := writeClient(t, s, false).CoreV1().ConfigMaps("a")
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			for i := 1; i <= 3; i++ {
				name := "made-" + string(rune('0'+i))
				if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
					t.Fatalf("create %s: got error %v, want none (the replay answers; only the target's runner drops the answer)", name, err)
				}
				written = i
			}
			if calls > 1 || crashedAt != tc.crashedAt {
				t.Errorf("crash: got %d calls, after write %d, want after write %d", calls, crashedAt, tc.crashedAt)
			}
			if got := firedStrings(s.Fired()); !equalStrings(got, tc.fired) {
				t.Errorf("fired:\ngot  %q\nwant %q", got, tc.fired)
			}
			if n := len(s.Writes()); n != 3 {
				t.Errorf("writes logged: got %d, want 3", n)
			}
		})
	}
}

// TestGracefulRestartWire lists configmaps three times, then watches,
// under graceful-restart. With a stop function, the fault fires when the
// request it names arrives, and calls it once before answering. A LIST is
// answered as usual, a watch with a stream that ends empty. Without one
// it does not act.
func TestGracefulRestartWire(t *testing.T) {
	tests := []struct {
		name      string
		plan      string
		withStop  bool
		stoppedAt int  // the request (1: the first LIST, 4: the WATCH) whose arrival stop came at (0: never)
		emptied   bool // the watch ends empty
		fired     []string
	}{
		{name: "graceful-restart - list #2 - stopped at its arrival, answered - pass", plan: "graceful-restart:list=2", withStop: true,
			stoppedAt: 2, fired: []string{"LIST #2 graceful-restart: the target's context cancelled"}},
		{name: "graceful-restart - at request 3, the watch - pass", plan: "graceful-restart:at=3", withStop: true,
			stoppedAt: 4, emptied: true, fired: []string{"watch #1 graceful-restart: the target's context cancelled, its watch ended empty"}},
		{name: "graceful-restart - no stop function - does not act - pass", plan: "graceful-restart:list=1",
			fired: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := faults.ParseText(tc.plan)
			if err != nil {
				t.Fatalf("plan %q: got error %v, want none", tc.plan, err)
			}
			sent, stoppedAt, calls := 0, 0, 0
			opts := []Option{WithPlan(plan)}
			if tc.withStop {
				opts = append(opts, WithHooks(Hooks{TargetStop: func() { calls++; stoppedAt = sent }}))
			}
			s := New(listHistory(t), opts...)
			cms := writeClient(t, s, false).CoreV1().ConfigMaps("")
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			for i := 1; i <= 3; i++ {
				sent = i
				l, err := cms.List(ctx, metav1.ListOptions{})
				if err != nil || len(l.Items) == 0 {
					t.Fatalf("list %d: got %v items, error %v, want the state (the request is answered as usual)", i, len(l.Items), err)
				}
			}
			sent = 4
			w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
			if err != nil {
				t.Fatalf("watch: got error %v, want none", err)
			}
			ev, open := <-w.ResultChan()
			switch {
			case tc.emptied && open:
				t.Errorf("watch: got event %s, want a stream that ends empty", ev.Type)
			case !tc.emptied && ev.Type != "ADDED":
				t.Errorf("watch: got first event %s, want ADDED (answered as usual)", ev.Type)
			}
			w.Stop()
			if calls > 1 || stoppedAt != tc.stoppedAt {
				t.Errorf("stop: got %d calls, at request %d, want at request %d", calls, stoppedAt, tc.stoppedAt)
			}
			if got := firedStrings(s.Fired()); !equalStrings(got, tc.fired) {
				t.Errorf("fired:\ngot  %q\nwant %q", got, tc.fired)
			}
		})
	}
}
