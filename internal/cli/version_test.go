package cli

import (
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/internal/testutil"
)

func TestVersion(t *testing.T) {
	clientGo := testutil.SelectedVersion(t, "k8s.io/client-go")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string // in stdout (code 0) or stderr
	}{
		{name: "version - prints the client-go it embeds - pass", args: []string{"version"}, wantCode: 0, want: "client-go " + clientGo},
		{name: "version - an argument - usage, fail", args: []string{"version", "extra"}, wantCode: 2, want: "takes no arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(tc.args...)
			text := out
			if tc.wantCode != 0 {
				text = stderr
			}
			if code != tc.wantCode || !strings.Contains(text, tc.want) {
				t.Errorf("lwreplay %s: got exit %d, stdout %q, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, out, stderr, tc.wantCode, tc.want)
			}
		})
	}
}
