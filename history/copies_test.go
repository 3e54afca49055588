package history

import (
	"strings"
	"testing"
)

// TestWithResourceVersionCopies checks that a copy under another RV is
// made once per object and RV, and is the copy asked for.
func TestWithResourceVersionCopies(t *testing.T) {
	o, _, _, err := ParseObject([]byte(`{"metadata":{"namespace":"ns","name":"a","uid":"u1","resourceVersion":"10"},"data":{"k":"v"}}`))
	if err != nil {
		t.Fatalf("ParseObject: got error %v, want none", err)
	}
	first, err := WithResourceVersion(o, "12")
	if err != nil {
		t.Fatalf("WithResourceVersion: got error %v, want none", err)
	}
	for _, c := range []struct {
		name     string
		rv       string
		wantSame bool // the same copy as first
	}{
		{"copy - same object and rv again - pass", "12", true},
		{"copy - same object, another rv - pass", "14", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := WithResourceVersion(o, c.rv)
			if err != nil {
				t.Fatalf("WithResourceVersion: got error %v, want none", err)
			}
			if (got == first) != c.wantSame {
				t.Errorf("got the first copy %v, want %v", got == first, c.wantSame)
			}
			if got.ResourceVersion != c.rv || !strings.Contains(string(got.Raw), `"resourceVersion":"`+c.rv+`"`) {
				t.Errorf("got rv %q, raw %s; want rv %q in both", got.ResourceVersion, got.Raw, c.rv)
			}
			if o.ResourceVersion != "10" || !strings.Contains(string(o.Raw), `"resourceVersion":"10"`) {
				t.Errorf("original: got rv %q, raw %s; want it unchanged at 10", o.ResourceVersion, o.Raw)
			}
		})
	}
}
