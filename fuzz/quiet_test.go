package fuzz

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

func TestQuietClientGo(t *testing.T) {
	// This test binary holds no quiet (no TestMain takes it): the handlers
	// are apimachinery's own here.
	before := len(utilruntime.ErrorHandlers)
	if before == 0 {
		t.Fatalf("error handlers: got none before, want apimachinery's")
	}
	first := harness.QuietClientGo()
	second := harness.QuietClientGo()
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

func TestQuietClientGoRestoresKlog(t *testing.T) {
	saved := klog.CaptureState()
	defer saved.Restore()
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if err := fs.Set("logtostderr", "false"); err != nil {
		t.Fatal(err)
	}
	var mine bytes.Buffer
	klog.SetOutput(&mine)

	restore := harness.QuietClientGo()
	klog.Info("while quiet")
	klog.Flush()
	quietOut := mine.String()
	restore()
	klog.Info("after restore")
	klog.Flush()
	tests := []struct {
		name string
		ok   bool
		got  string
		want string
	}{
		{name: "klog - while quiet - nothing reaches the writer - pass", ok: !strings.Contains(quietOut, "while quiet"), got: quietOut, want: "nothing"},
		{name: "klog - after the last restore - the writer it replaced gets logs - pass",
			ok: strings.Contains(mine.String(), "after restore"), got: mine.String(), want: `a line with "after restore"`},
		{name: "klog - after the last restore - logtostderr as it was - pass",
			ok: fs.Lookup("logtostderr").Value.String() == "false", got: fs.Lookup("logtostderr").Value.String(), want: "false"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
}
