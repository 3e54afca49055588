package fuzz

import (
	"testing"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

func TestQuietClientGo(t *testing.T) {
	// This test binary holds no quiet (no TestMain takes it): the handlers
	// are apimachinery's own here.
	before := len(utilruntime.ErrorHandlers)
	if before == 0 {
		t.Fatalf("error handlers: got none before, want apimachinery's")
	}
	first := QuietClientGo()
	second := QuietClientGo()
	steps := []struct {
		name string
		do   func()
		want int
	}{
		{name: "quiet - two holders - handlers off - pass", do: func() {}, want: 0},
		{name: "quiet - one holder gone - still off - pass", do: second, want: 0},
		{name: "quiet - the same restore twice - counted once - pass", do: second, want: 0},
		{name: "quiet - last holder gone - restored - pass", do: first, want: before},
	}
	for _, st := range steps {
		st.do()
		if got := len(utilruntime.ErrorHandlers); got != st.want {
			t.Errorf("%s: handlers: got %d, want %d", st.name, got, st.want)
		}
	}
}
