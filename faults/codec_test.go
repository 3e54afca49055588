package faults

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	n := len(choices())
	tests := []struct {
		name string
		in   []byte
		want string // String() of the plan
	}{
		{"decode - nil - pass", nil, ""},
		{"decode - all normal - pass", []byte{0, 1, 0x40, 0x7f}, ""},
		{"decode - first choice - pass", []byte{0x80}, "drop-bookmark:at=0"},
		{"decode - parameter combinations in Values order - pass", []byte{0x82, 0x83, 0x84, 0x85, 0x86},
			"close-watch:after=0,at=0 close-watch:after=1,at=1 close-watch:after=2,at=2 close-watch:after=5,at=3 expire-watch:after=0,at=4"},
		{"decode - normal points keep numbering - pass", []byte{0, 0x80, 0x10, 0x81}, "drop-bookmark:at=1 drop-all-bookmarks:at=3"},
		{"decode - wraps modulo choices - pass", []byte{byte(0x80 + n), byte(0x80 + n + 2)}, "drop-bookmark:at=0 close-watch:after=0,at=1"},
		{"decode - last choice - pass", []byte{byte(0x80 + n - 1)}, "consistent-read-wait:ms=3000,at=0"},
		{"decode - a code keeps its byte - pass", []byte{0x80 + 28, 0x80 + 17}, "opaque-rv:at=0 http-error:code=503,at=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Decode(tt.in).String(); got != tt.want {
				t.Errorf("Decode(%x): got %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDecodeEncode(t *testing.T) {
	tests := []struct {
		name string
		plan string
		want []byte // Encode's bytes
	}{
		{"round trip - empty plan - pass", "", []byte{}},
		{"round trip - one decision - pass", "drop-bookmark:at=0", []byte{0x80}},
		{"round trip - implicit default - pass", "close-watch:at=2", []byte{0, 0, 0x82}},
		{"round trip - parameters - pass", "close-watch:after=5,at=1 http-error:code=503,at=4 delay:ms=65000,at=5",
			[]byte{0, 0x85, 0, 0, byte(0x80 + choiceIndex(t, "http-error:code=503")), byte(0x80 + choiceIndex(t, "delay:ms=65000"))}},
		{"round trip - plan fault at a point - pass", "opaque-rv:at=3", []byte{0, 0, 0, byte(0x80 + choiceIndex(t, "opaque-rv"))}},
		{"round trip - breaking faults - pass", "reorder:at=0 missing-initial-events-end:at=1",
			[]byte{byte(0x80 + choiceIndex(t, "reorder")), byte(0x80 + choiceIndex(t, "missing-initial-events-end"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := must(t, tt.plan)
			b, err := Encode(p)
			if err != nil {
				t.Fatalf("Encode(%q): got error %v, want none", tt.plan, err)
			}
			if !bytes.Equal(b, tt.want) {
				t.Errorf("Encode(%q): got %x, want %x", tt.plan, b, tt.want)
			}
			if got := Decode(b); !got.Equal(p) || !reflect.DeepEqual(got, p.Canonical()) {
				t.Errorf("Decode(Encode(%q)): got %q, want %q", tt.plan, got, p)
			}
		})
	}
}

// choiceIndex is the byte offset of a decision's text form in the choices.
func choiceIndex(t *testing.T, text string) int {
	t.Helper()
	d, err := ParseFault(text)
	if err != nil {
		t.Fatalf("ParseFault(%q): got error %v, want none", text, err)
	}
	d.At = 0
	for k, c := range choices() {
		if c.Equal(d) {
			return k
		}
	}
	t.Fatalf("choices: got no %q, want it", text)
	return 0
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name   string
		p      Plan
		errHas string
	}{
		{"encode - every point - fail", must(t, "close-watch:after=5"), "at=-1"},
		{"encode - where-parameter - fail", Plan{Decisions: []Decision{{Fault: "reset", At: 2, Params: map[string]int{"frame": 1}}}}, `"frame"`},
		{"encode - value not in Values - fail", must(t, "delay:ms=2500,at=14"), "ms=2500"},
		{"encode - unknown fault - fail", Plan{Decisions: []Decision{{Fault: "nope", At: 1}}}, `unknown fault "nope"`},
		{"encode - two at one point - fail", must(t, "reset:at=3 reorder:at=3"), "second decision at point 3"},
		{"encode - out of At order - fail", must(t, "reset:at=3 reorder:at=1"), "At order"},
		{"encode - huge At - fail", Plan{Decisions: []Decision{{Fault: "reset", At: 1 << 30}}}, "past point"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Encode(tt.p)
			if !errors.Is(err, ErrNotEncodable) || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("Encode(%q): got %x, error %v; want ErrNotEncodable containing %q", tt.p, b, err, tt.errHas)
			}
		})
	}
}

func TestDecodeLocality(t *testing.T) {
	base := []byte{0x00, 0x85, 0x7f, 0xa0, 0x90, 0x00, 0xff}
	for i := range base {
		for _, c := range []byte{0x00, 0x7f, 0x80, 0x81, 0xc3, 0xff} {
			mod := bytes.Clone(base)
			mod[i] = c
			t.Run(fmt.Sprintf("locality - byte %d to %#x - pass", i, c), func(t *testing.T) {
				if diff := differingPoints(Decode(base), Decode(mod)); len(diff) > 1 || (len(diff) == 1 && diff[0] != i) {
					t.Errorf("changing byte %d to %#x: got changes at points %v, want only at %d", i, c, diff, i)
				}
			})
		}
	}
}

// differingPoints lists the points whose decision differs between plans of
// At >= 0 decisions.
func differingPoints(p, q Plan) []int {
	at := func(p Plan) map[int]Decision {
		m := map[int]Decision{}
		for _, d := range p.Decisions {
			m[d.At] = d
		}
		return m
	}
	pm, qm := at(p), at(q)
	var diff []int
	for i := range 256 {
		d, dok := pm[i]
		e, eok := qm[i]
		if dok != eok || (dok && !d.Equal(e)) {
			diff = append(diff, i)
		}
	}
	return diff
}

func TestDecodeNormalMajority(t *testing.T) {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	if got := len(Decode(all).Decisions); got > 128 {
		t.Errorf("decisions from every byte value once: got %d of 256, want at most half", got)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0x80, 0x00, 0xff})
	f.Add([]byte("close-watch"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := Decode(b)
		if err := p.Validate(); err != nil {
			t.Fatalf("Decode(%x): got invalid plan %q: %v", b, p, err)
		}
		e, err := Encode(p)
		if err != nil {
			t.Fatalf("Encode(Decode(%x)): got error %v, want none", b, err)
		}
		if len(e) > len(b) {
			t.Errorf("Encode(Decode(%x)): got %d bytes, want at most %d", b, len(e), len(b))
		}
		if q := Decode(e); !q.Equal(p) || !reflect.DeepEqual(q, p) {
			t.Errorf("Decode(Encode(Decode(%x))): got %q, want %q", b, q, p)
		}
		if q, err := ParseText(p.String()); err != nil || !reflect.DeepEqual(q, p) {
			t.Errorf("ParseText(String()) of %q: got %q, %v; want the same plan", p, q, err)
		}
		if Describe(p) == "" {
			t.Errorf("Describe(%q): got empty, want words", p)
		}
	})
}
