package faults

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestParsePlan(t *testing.T) {
	example, err := os.ReadFile("testdata/example.yaml")
	if err != nil {
		t.Fatalf("read testdata/example.yaml: got error %v, want none", err)
	}
	tests := []struct {
		name    string
		in      string
		want    string // String() of the plan
		wantErr error
		errHas  []string
	}{
		{name: "plan file - example - pass", in: string(example),
			want: "close-watch:after=5 expire-continue:page=2 http-error:code=503,list=1 delay:ms=2500,at=14 opaque-rv"},
		{name: "plan file - no faults key - pass", in: "version: 1\n", want: ""},
		{name: "plan file - empty faults - pass", in: "version: 1\nfaults: []\n", want: ""},
		{name: "plan file - quoted entry - pass", in: "version: 1\nfaults: [\"reset:frame=3\"]\n", want: "reset:frame=3"},

		{name: "plan file - empty - fail", in: "", wantErr: ErrPlanFile, errHas: []string{"no version"}},
		{name: "plan file - no version - fail", in: "faults:\n  - reset\n", wantErr: ErrPlanFile, errHas: []string{"no version"}},
		{name: "plan file - newer version - fail", in: "version: 2\nfaults: []\n", wantErr: ErrPlanFile, errHas: []string{"version 2", "reads version 1"}},
		{name: "plan file - string version - fail", in: "version: \"1\"\n", wantErr: ErrPlanFile, errHas: []string{"not an integer"}},
		{name: "plan file - unknown key - fail", in: "version: 1\nfault:\n  - reset\n", wantErr: ErrPlanFile, errHas: []string{"fault"}},
		{name: "plan file - not a mapping - fail", in: "- reset\n", wantErr: ErrPlanFile},
		{name: "plan file - bad YAML - fail", in: "version: [1\n", wantErr: ErrPlanFile},
		{name: "plan file - unknown fault names entry - fail", in: "version: 1\nfaults:\n  - reset\n  - nope\n",
			wantErr: ErrUnknownFault, errHas: []string{"faults[1]", `"nope"`}},
		{name: "plan file - bad parameter names entry - fail", in: "version: 1\nfaults:\n  - close-watch:afterr=5\n",
			wantErr: ErrParam, errHas: []string{"faults[0]", `"afterr"`, "valid: after"}},
		{name: "plan file - mapping entry - fail", in: "version: 1\nfaults:\n  - reset\n  - close-watch: after=5\n",
			wantErr: ErrPlanFile, errHas: []string{"faults[1]", "a mapping"}},
		{name: "plan file - number entry - fail", in: "version: 1\nfaults:\n  - 5\n",
			wantErr: ErrPlanFile, errHas: []string{"faults[0]"}},
		{name: "plan file - empty entry - fail", in: "version: 1\nfaults:\n  -\n",
			wantErr: ErrPlanFile, errHas: []string{"faults[0]", "empty entry"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePlan([]byte(tt.in))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ParsePlan: got error %v, want %v", err, tt.wantErr)
				}
				for _, s := range tt.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("ParsePlan: got error %q, want it to contain %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ParsePlan: got error %v, want none", err)
			}
			if got := p.String(); got != tt.want {
				t.Errorf("ParsePlan: got %q, want %q", got, tt.want)
			}
			back, err := ParsePlan(FormatPlan(p))
			if err != nil || !back.Equal(p) {
				t.Errorf("ParsePlan(FormatPlan): got %q, %v; want %q\n%s", back, err, p, FormatPlan(p))
			}
		})
	}
}
