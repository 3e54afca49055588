package oracle

import (
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

var (
	configmaps  = history.Resource{Version: "v1", Resource: "configmaps"}
	deployments = history.Resource{Group: "apps", Version: "v1", Resource: "deployments"}
)

func TestWriteString(t *testing.T) {
	tests := []struct {
		name string
		w    Write
		want string
	}{
		{name: "write string - stored update - pass",
			w:    Write{At: 1500 * time.Millisecond, Verb: "update", Resource: configmaps, Key: "a/made", RVBefore: "1013", RVAfter: "1014", Code: 200, Event: history.Modified},
			want: "1.5s update configmaps a/made rv 1013→1014 200"},
		{name: "write string - status update refused - the reason - fail",
			w:    Write{Verb: "update", Subresource: "status", Resource: deployments, Key: "a/web", RVBefore: "7", RVAfter: "7", Code: 409, Reason: "Conflict"},
			want: "0s update/status deployments.apps a/web rv 7→7 409 Conflict"},
		{name: "write string - dry-run create - no rvs - pass",
			w:    Write{Verb: "create", Resource: configmaps, Key: "a/dry", Code: 201, DryRun: true},
			want: "0s create configmaps a/dry rv none→none 201 dry run"},
		{name: "write string - delete - no rv after - pass",
			w:    Write{At: time.Minute, Verb: "delete", Resource: configmaps, Key: "a/made", RVBefore: "9", Code: 200, Event: history.Deleted},
			want: "1m0s delete configmaps a/made rv 9→none 200"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.w.String(); got != tc.want {
				t.Errorf("String: got %q, want %q", got, tc.want)
			}
		})
	}
}
