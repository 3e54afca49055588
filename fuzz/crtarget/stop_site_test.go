package crtarget

import "testing"

// TestStillInReflector checks the site a stop that outlasted the grace
// period is given: the innermost Reflector method a goroutine is in.
func TestStillInReflector(t *testing.T) {
	inBackoff := "goroutine 7 [chan receive (durable), synctest bubble 3]:\n" +
		"k8s.io/client-go/tools/cache.(*Reflector).watchList.func1({0x1, 0x2})\n\t/x/reflector.go:817 +0x205\n" +
		"k8s.io/client-go/tools/cache.(*Reflector).watchList(0x3, {0x4, 0x5})\n\t/x/reflector.go:865 +0x68d\n"
	waiting := "goroutine 5 [sync.WaitGroup.Wait (durable), synctest bubble 3]:\n" +
		"sync.(*WaitGroup).Wait(0x1)\n\t/go/sync/waitgroup.go:1 +0x1\n"
	tests := []struct {
		name   string
		stacks []string
		want   string
	}{
		{name: "still in reflector - one in its WatchList backoff - that closure - pass", stacks: []string{waiting, inBackoff},
			want: "k8s.io/client-go/tools/cache.(*Reflector).watchList.func1"},
		{name: "still in reflector - none in a reflector - no site - pass", stacks: []string{waiting}, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := stillInReflector(tc.stacks); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
