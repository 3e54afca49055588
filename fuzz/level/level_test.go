package level

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    Level
		wantErr error
	}{
		{name: "level - typed - pass", in: "typed", want: Typed},
		{name: "level - wire - pass", in: "wire", want: Wire},
		{name: "level - unknown name - fail", in: "deep", wantErr: ErrLevel},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.in)
			if !errors.Is(err, tc.wantErr) || (err == nil && got != tc.want) {
				t.Errorf("Parse(%q): got %v, %v, want %v, %v", tc.in, got, err, tc.want, tc.wantErr)
			}
			if err == nil && got.String() != tc.in {
				t.Errorf("String: got %q, want %q", got.String(), tc.in)
			}
		})
	}
}
