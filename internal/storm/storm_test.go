package storm

import (
	"fmt"
	"testing"
	"time"
)

func TestCounter(t *testing.T) {
	t0 := time.Unix(0, 0)
	tests := []struct {
		name      string
		every     time.Duration // between requests
		n         int           // requests
		resetAt   int           // Reset before this request (-1: never)
		wantStorm int           // the request Add first reports a storm at (-1: none)
	}{
		{name: "storm - 31 requests at once - the 31st storms - fail", every: 0, n: 40, resetAt: -1, wantStorm: 30},
		{name: "storm - 30 requests at once - none - pass", every: 0, n: 30, resetAt: -1, wantStorm: -1},
		{name: "storm - one request a second - none - pass", every: time.Second, n: 200, resetAt: -1, wantStorm: -1},
		{name: "storm - one every 300 ms - 31 within 9 s - fail", every: 300 * time.Millisecond, n: 40, resetAt: -1, wantStorm: 30},
		{name: "storm - 31 over a little more than a window - none - pass", every: 345 * time.Millisecond, n: 31, resetAt: -1, wantStorm: -1},
		{name: "storm - progress before the 31st - counted from there - pass", every: 0, n: 45, resetAt: 30, wantStorm: -1},
		{name: "storm - progress, then 31 more - fail", every: 0, n: 70, resetAt: 30, wantStorm: 60},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCounter[int](0, 0)
			got := -1
			for i := range tc.n {
				if i == tc.resetAt {
					c.Reset()
				}
				if c.Add(t0.Add(time.Duration(i)*tc.every), i) && got < 0 {
					got = i
					held := c.Held()
					if len(held) != Limit+1 || held[0] != i-Limit || held[Limit] != i {
						t.Errorf("held: got %v, want requests %d to %d", held, i-Limit, i)
					}
					if want := t0.Add(time.Duration(i-Limit) * tc.every); !c.Oldest().Equal(want) {
						t.Errorf("oldest: got %v, want %v", c.Oldest(), want)
					}
				}
			}
			if got != tc.wantStorm {
				t.Errorf("first storm: got at request %d, want %d", got, tc.wantStorm)
			}
		})
	}
	t.Run("storm - 11 requests exactly a window apart, limit 10 - none (within means less than) - pass", func(t *testing.T) {
		c := NewCounter[int](10*time.Second, 10)
		for i := range 11 {
			if c.Add(t0.Add(time.Duration(i)*time.Second), i) {
				t.Fatalf("request %d: got a storm, want none", i)
			}
		}
		if !c.Add(t0.Add(10500*time.Millisecond), 11) {
			t.Errorf("request 11 at 10.5s: got no storm, want one (11 requests from 1s to 10.5s)")
		}
	})
	t.Run("storm - defaults - pass", func(t *testing.T) {
		c := NewCounter[struct{}](0, 0)
		if got := fmt.Sprint(c.Window(), c.Limit()); got != fmt.Sprint(Window, Limit) {
			t.Errorf("window, limit: got %s, want %v %d", got, Window, Limit)
		}
	})
}
