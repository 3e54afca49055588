package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/history"
)

const (
	expiredCassette  = "../../cassettes/real-configmaps-expired.yaml"
	shippedCassettes = "../../cassettes"
)

// synthPods writes a synthetic cassette of pods only and returns its path.
func synthPods(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.yaml")
	if code, _, stderr := runCLI("synth", "--kinds", "pods", "--objects", "20", "--events", "40", "--seed", "1", "-o", path); code != 0 {
		t.Fatalf("synth: exit code: got %d, want 0 (stderr %q)", code, stderr)
	}
	return path
}

func TestFuzzResourceErrors(t *testing.T) {
	pods := synthPods(t)
	runErrorCases(t, []errorCase{
		{"fuzz - --resource not recorded - recorded ones named - fail", []string{"fuzz", "--resource", "secrets", watchlistCassette}, 2,
			`--resource: resource not recorded: "secrets" (recorded: configmaps.v1, pods.v1)`},
		{"fuzz - pods-only cassette, --resource configmaps - fail", []string{"fuzz", "--resource", "configmaps", pods}, 2,
			`"configmaps" (recorded: pods.v1)`},
		{"fuzz - --resource empty - fail", []string{"fuzz", "--resource", "", watchlistCassette}, 2, "--resource"},
	})
}

// TestFuzzResources runs the command on cassettes that recorded different
// resources. A pods-only cassette fuzzes pods with no flag. --resource
// picks one. A directory whose cassettes lack some resource fuzzes each
// resource over the cassettes that recorded it, dealing inputs in turn.
func TestFuzzResources(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes for a second per case")
	}
	pods := synthPods(t)
	tests := []struct {
		name       string
		args       []string
		wantHeader string
		wantPer    string // the runs-per-resource line's pattern; "" when none is wanted
	}{
		{"fuzz - pods-only synthetic cassette, no --resource - fuzzes pods - pass",
			[]string{pods}, "resources pods.v1, level", ""},
		{"fuzz - --resource pods of two cassettes - pods only - pass",
			[]string{"--resource", "pods", watchlistCassette, expiredCassette}, "resources pods.v1 (1 of 2 cassettes), level", ""},
		{"fuzz - --resource by kind and full name, the same one - once - pass",
			[]string{"--resource", "Pod,pods.v1", watchlistCassette}, "resources pods.v1, level", ""},
		{"fuzz - shipped directory, no --resource - every resource in turn - pass",
			[]string{shippedCassettes}, "resources configmaps.v1, pods.v1 (3 of 4 cassettes), level",
			`(?m)^runs per resource: configmaps\.v1 [1-9]\d*, pods\.v1 [1-9]\d*$`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"fuzz", "--duration", "1s", "--seed", "1", "--watchlist", "off", "--artifacts", t.TempDir()}, tc.args...)
			code, out, stderr := runCLI(args...)
			if code != 0 {
				t.Fatalf("exit code: got %d, want 0; stdout:\n%s\nstderr: %s", code, out, stderr)
			}
			if !strings.Contains(out, tc.wantHeader) {
				t.Errorf("header: got\n%s\nwant it to contain %q", out, tc.wantHeader)
			}
			per := regexp.MustCompile(`(?m)^runs per resource: `)
			switch {
			case tc.wantPer == "" && per.MatchString(out):
				t.Errorf("output: got\n%s\nwant no runs-per-resource line (one resource)", out)
			case tc.wantPer != "" && !regexp.MustCompile(tc.wantPer).MatchString(out):
				t.Errorf("output: got\n%s\nwant a line matching %q", out, tc.wantPer)
			}
		})
	}
}

func TestSelectResources(t *testing.T) {
	tests := []struct {
		name    string
		names   []string
		want    string // resource: cassettes; ...
		wantErr string // "" for none
	}{
		{name: "select - no name - every recorded resource, each with its cassettes - pass", names: nil,
			want: fmt.Sprintf("configmaps.v1 [%s %s]; pods.v1 [%s]", expiredCassette, watchlistCassette, watchlistCassette)},
		{name: "select - pods - only the cassette that recorded pods - pass", names: []string{"pods"},
			want: fmt.Sprintf("pods.v1 [%s]", watchlistCassette)},
		{name: "select - pods then ConfigMap then pod - named order, once each - pass", names: []string{"pods", "ConfigMap", "pod"},
			want: fmt.Sprintf("pods.v1 [%s]; configmaps.v1 [%s %s]", watchlistCassette, expiredCassette, watchlistCassette)},
		{name: "select - not recorded - usage error - fail", names: []string{"nodes"}, wantErr: "usage: --resource: resource not recorded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			paths := []string{expiredCassette, watchlistCassette}
			recorded, err := fuzz.RecordedResources(paths)
			if err != nil {
				t.Fatalf("RecordedResources: got error %v, want none", err)
			}
			got, err := selectResources(recorded, paths, tc.names)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error: got %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("error: got %v, want none", err)
			}
			var parts []string
			for _, r := range got {
				parts = append(parts, fmt.Sprintf("%s %v", r.Resource, r.Cassettes))
			}
			if s := strings.Join(parts, "; "); s != tc.want {
				t.Errorf("selected: got %q, want %q", s, tc.want)
			}
		})
	}
}

func TestResourcesText(t *testing.T) {
	cm := fuzz.Recorded{Resource: harness.ConfigMaps, Cassettes: []string{"a.yaml", "b.yaml", "b_001.yaml"}, Recordings: []string{"a.yaml", "b.yaml b_001.yaml"}}
	pods := fuzz.Recorded{Resource: history.Resource{Version: "v1", Resource: "pods"}, Cassettes: []string{"b.yaml", "b_001.yaml"}, Recordings: []string{"b.yaml b_001.yaml"}}
	tests := []struct {
		name     string
		selected []fuzz.Recorded
		n        int
		want     string
	}{
		{"resources text - every cassette recorded it - no count - pass", []fuzz.Recorded{cm}, 2, "configmaps.v1"},
		{"resources text - some did not - count - pass", []fuzz.Recorded{cm, pods}, 2, "configmaps.v1, pods.v1 (1 of 2 cassettes)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := resourcesText(tc.selected, tc.n); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
