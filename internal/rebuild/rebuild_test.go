package rebuild

import (
	"errors"
	"testing"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{name: "parse version - full - pass", in: "v0.36.6", want: "v0.36.6"},
		{name: "parse version - no v - pass", in: "0.37.2", want: "v0.37.2"},
		{name: "parse version - minor only - pass", in: "v0.35", want: "v0.35"},
		{name: "parse version - older than v0.35 - fail", in: "v0.34.13", wantErr: true},
		{name: "parse version - major 1 - fail", in: "v1.35.0", wantErr: true},
		{name: "parse version - a word - fail", in: "latest", wantErr: true},
		{name: "parse version - prerelease - fail", in: "v0.36.0-rc.1", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseVersion(tc.in)
			if tc.wantErr {
				if !errors.Is(err, ErrVersion) {
					t.Errorf("ParseVersion(%q): got %q, %v; want an ErrVersion", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseVersion(%q): got %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestSelf(t *testing.T) {
	t.Run("self - a test binary of a checkout - its checkout - pass", func(t *testing.T) {
		_, replace, err := self()
		if err != nil || replace == "" {
			t.Errorf("self: got replace %q, error %v; want this checkout", replace, err)
		}
	})
	t.Run("self - LWREPLAY_SOURCE not a checkout - fail", func(t *testing.T) {
		t.Setenv(SourceEnv, t.TempDir())
		if _, _, err := self(); !errors.Is(err, ErrSource) {
			t.Errorf("self: got %v, want an ErrSource", err)
		}
	})
}
