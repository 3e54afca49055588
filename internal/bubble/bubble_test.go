package bubble

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestHost(t *testing.T) {
	tests := []struct {
		name string
		f    func(t *testing.T)
		want error
	}{
		{name: "host - an hour in a bubble - pass", want: nil, f: func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				time.Sleep(time.Hour)
				if d := time.Since(start); d != time.Hour {
					t.Errorf("slept: got %v, want 1h", d)
				}
			})
		}},
		{name: "host - a bubble that fails - fail", want: ErrFailed, f: func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { t.Error("deliberate") })
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			if got := Host(tc.f); !errors.Is(got, tc.want) {
				t.Errorf("Host: got %v, want %v", got, tc.want)
			}
			if d := time.Since(start); d > time.Minute {
				t.Errorf("real time: got %v, want well under the virtual hour", d)
			}
		})
	}
}
