package replayer

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestFaultConsistentReadWait(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		plan     string
		target   string
		want     []string
		wantWait time.Duration
		fired    []string
		opts     []Option
	}{
		{name: "consistent-read-wait - a consistent LIST is held, then answered - pass",
			plan: "consistent-read-wait:ms=1000", target: "/api/v1/configmaps",
			want: []string{"LIST rv 1003: ns1/a@1001 ns1/b@1002 ns2/c@1003"}, wantWait: time.Second,
			fired: []string{"LIST #1 consistent-read-wait: 1000 ms"}},
		{name: "consistent-read-wait - a LIST at resourceVersion 0 is not a consistent read - pass",
			plan: "consistent-read-wait:ms=3000", target: fList0,
			want: []string{"LIST rv 1003: ns1/a@1001 ns1/b@1002 ns2/c@1003"}, fired: []string{}},
		{name: "consistent-read-wait - a continued page is not held - pass",
			plan: "consistent-read-wait:ms=3000,page=2", target: fPage1,
			want: []string{"LIST rv 1003: ns1/a@1001 ns1/b@1002 +continue"}, fired: []string{}},
		{name: "consistent-read-wait - a server without a watch cache reads etcd: nothing to wait for - pass",
			plan: "consistent-read-wait:ms=1000", target: "/api/v1/configmaps", opts: []Option{WithoutWatchCache()},
			want: []string{"LIST rv 1003: ns1/a@1001 ns1/b@1002 ns2/c@1003"}, fired: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := mustPlan(t, tc.plan)
			synctest.Test(t, func(t *testing.T) {
				srv := New(smallHistory(t), append([]Option{WithPlan(plan), WithLatency(0)}, tc.opts...)...) // the wait alone, no latency
				start := time.Now()
				if got := transcript(fetch(t, srv.Transport(), tc.target), false); !equalStrings(got, tc.want) {
					t.Errorf("answer:\ngot  %q\nwant %q", got, tc.want)
				}
				if got := time.Since(start); got != tc.wantWait {
					t.Errorf("answered after: got %s, want %s", got, tc.wantWait)
				}
				if got := firedStrings(srv.Fired()); !equalStrings(got, tc.fired) {
					t.Errorf("fired:\ngot  %q\nwant %q", got, tc.fired)
				}
			})
		})
	}
}
