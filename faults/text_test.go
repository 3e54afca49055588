package faults

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseFault(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Decision
		wantErr error
		errHas  []string // substrings the error must contain
	}{
		{name: "parse - bare name, default filled - pass", in: "close-watch",
			want: Decision{Fault: "close-watch", At: -1, Params: map[string]int{"after": 0}}},
		{name: "parse - parameter - pass", in: "close-watch:after=5",
			want: Decision{Fault: "close-watch", At: -1, Params: map[string]int{"after": 5}}},
		{name: "parse - where page - pass", in: "expire-continue:page=2",
			want: Decision{Fault: "expire-continue", At: -1, Params: map[string]int{"page": 2}}},
		{name: "parse - parameter and where list - pass", in: "http-error:code=503,list=1",
			want: Decision{Fault: "http-error", At: -1, Params: map[string]int{"code": 503, "list": 1}}},
		{name: "parse - value outside Values and at - pass", in: "delay:ms=2500,at=14",
			want: Decision{Fault: "delay", At: 14, Params: map[string]int{"ms": 2500}}},
		{name: "parse - no parameters at 0 - pass", in: "drop-event:at=0",
			want: Decision{Fault: "drop-event", At: 0}},
		{name: "parse - surrounding space - pass", in: "  reset \n",
			want: Decision{Fault: "reset", At: -1}},
		{name: "parse - watch and frame on a frame fault - pass", in: "duplicate:frame=3,watch=2",
			want: Decision{Fault: "duplicate", At: -1, Params: map[string]int{"watch": 2, "frame": 3}}},
		{name: "parse - plan fault at a point - pass", in: "opaque-rv:at=5",
			want: Decision{Fault: "opaque-rv", At: 5}},
		{name: "parse - http-error code at its lower bound - pass", in: "http-error:code=400",
			want: Decision{Fault: "http-error", At: -1, Params: map[string]int{"code": 400}}},
		{name: "parse - http-error code at its upper bound - pass", in: "http-error:code=599",
			want: Decision{Fault: "http-error", At: -1, Params: map[string]int{"code": 599}}},
		{name: "parse - delay of an hour - pass", in: "delay:ms=3600000",
			want: Decision{Fault: "delay", At: -1, Params: map[string]int{"ms": 3600000}}},

		{name: "parse - unknown fault - fail", in: "close-wach:after=5",
			wantErr: ErrUnknownFault, errHas: []string{`"close-wach"`, "close-watch", "drop-event"}},
		{name: "parse - empty - fail", in: "", wantErr: ErrSyntax},
		{name: "parse - no name - fail", in: ":after=5", wantErr: ErrSyntax},
		{name: "parse - empty parameter list - fail", in: "close-watch:", wantErr: ErrSyntax},
		{name: "parse - no equals - fail", in: "close-watch:after", wantErr: ErrSyntax},
		{name: "parse - empty key - fail", in: "close-watch:=5", wantErr: ErrSyntax},
		{name: "parse - trailing comma - fail", in: "close-watch:after=5,", wantErr: ErrSyntax},
		{name: "parse - unknown parameter - fail", in: "close-watch:afterr=5",
			wantErr: ErrParam, errHas: []string{`"afterr"`, "valid: after, watch, at"}},
		{name: "parse - parameter of another fault - fail", in: "delay:after=5",
			wantErr: ErrParam, errHas: []string{`"after"`, "valid: ms, watch, frame, at"}},
		{name: "parse - where-parameter for another kind - fail", in: "close-watch:frame=2",
			wantErr: ErrParam, errHas: []string{`"frame"`, "valid: after, watch, at"}},
		{name: "parse - where-parameter on a plan fault - fail", in: "opaque-rv:watch=1",
			wantErr: ErrParam, errHas: []string{"valid: at"}},
		{name: "parse - negative value - fail", in: "close-watch:after=-1", wantErr: ErrParam, errHas: []string{"non-negative"}},
		{name: "parse - plus sign - fail", in: "close-watch:after=+1", wantErr: ErrParam},
		{name: "parse - not a number - fail", in: "close-watch:after=five", wantErr: ErrParam},
		{name: "parse - empty value - fail", in: "close-watch:after=", wantErr: ErrParam},
		{name: "parse - overflow - fail", in: "close-watch:after=99999999999999999999999", wantErr: ErrParam, errHas: []string{"out of range"}},
		{name: "parse - duplicate parameter - fail", in: "close-watch:after=1,after=2", wantErr: ErrParam, errHas: []string{"twice"}},
		{name: "parse - duplicate at - fail", in: "close-watch:at=1,at=2", wantErr: ErrParam, errHas: []string{"twice"}},
		{name: "parse - ordinal 0 - fail", in: "expire-continue:page=0", wantErr: ErrParam, errHas: []string{"start at 1"}},
		{name: "parse - at with a where-parameter - fail", in: "drop-event:watch=1,at=3", wantErr: ErrParam, errHas: []string{"at="}},
		{name: "parse - list and watch together - fail", in: "http-error:list=1,watch=1", wantErr: ErrParam, errHas: []string{"no point is both"}},
		{name: "parse - http-error code 1, no HTTP error - fail", in: "http-error:code=1",
			wantErr: ErrParam, errHas: []string{"code=1", "want 400 to 599", "4xx or 5xx"}},
		{name: "parse - http-error code 200, a success - fail", in: "http-error:code=200", wantErr: ErrParam, errHas: []string{"want 400 to 599"}},
		{name: "parse - http-error code 600, past 5xx - fail", in: "http-error:code=600", wantErr: ErrParam, errHas: []string{"want 400 to 599"}},
		{name: "parse - stale-list 0 events back, the current state - fail", in: "stale-list:back=0", wantErr: ErrParam, errHas: []string{"back=0", "want 1 or more"}},
		{name: "parse - delay of 0 ms, no pause - fail", in: "delay:ms=0", wantErr: ErrParam, errHas: []string{"ms=0", "want 1 to 3600000"}},
		{name: "parse - delay past any watch's end - fail", in: "delay:ms=3600001", wantErr: ErrParam, errHas: []string{"want 1 to 3600000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFault(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ParseFault(%q): got error %v, want %v", tt.in, err, tt.wantErr)
				}
				for _, s := range tt.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("ParseFault(%q): got error %q, want it to contain %q", tt.in, err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseFault(%q): got error %v, want none", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseFault(%q): got %+v, want %+v", tt.in, got, tt.want)
			}
			back, err := ParseFault(got.String())
			if err != nil || !reflect.DeepEqual(back, got) {
				t.Errorf("ParseFault(String()) of %q: got %+v, %v; want %+v", got.String(), back, err, got)
			}
		})
	}
}

func TestPlanText(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     string // String() of the parsed plan
		wantErr  error
		errIndex string
	}{
		{name: "text - several faults - pass", in: "close-watch:after=5  expire-continue:page=2\n delay:ms=2500,at=14",
			want: "close-watch:after=5 expire-continue:page=2 delay:ms=2500,at=14"},
		{name: "text - empty - pass", in: "  ", want: ""},
		{name: "text - bad second fault - fail", in: "reset nope", wantErr: ErrUnknownFault, errIndex: "fault 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseText(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errIndex) {
					t.Fatalf("ParseText(%q): got error %v, want %v naming %q", tt.in, err, tt.wantErr, tt.errIndex)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseText(%q): got error %v, want none", tt.in, err)
			}
			if got := p.String(); got != tt.want {
				t.Errorf("String(): got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		p       Plan
		wantErr error
	}{
		{"validate - parsed-like plan - pass", Plan{Decisions: []Decision{{Fault: "close-watch", At: -1, Params: map[string]int{"after": 3, "watch": 2}}}}, nil},
		{"validate - zero where-parameter - fail", Plan{Decisions: []Decision{{Fault: "reset", At: -1, Params: map[string]int{"frame": 0}}}}, ErrParam},
		{"validate - unknown fault - fail", Plan{Decisions: []Decision{{Fault: "reset"}, {Fault: "nope"}}}, ErrUnknownFault},
		{"validate - at key in Params - fail", Plan{Decisions: []Decision{{Fault: "reset", Params: map[string]int{"at": 1}}}}, ErrParam},
		{"validate - negative parameter - fail", Plan{Decisions: []Decision{{Fault: "delay", Params: map[string]int{"ms": -5}}}}, ErrParam},
		{"validate - At -2 - fail", Plan{Decisions: []Decision{{Fault: "reset", At: -2}}}, ErrParam},
		{"validate - parameter below its bound - fail", Plan{Decisions: []Decision{{Fault: "http-error", At: -1, Params: map[string]int{"code": 1}}}}, ErrParam},
		{"validate - parameter above its bound - fail", Plan{Decisions: []Decision{{Fault: "http-error", At: -1, Params: map[string]int{"code": 600}}}}, ErrParam},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.p.Validate(); !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Errorf("Validate(): got %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestEqual(t *testing.T) {
	cw := func(at int, params map[string]int) Decision {
		return Decision{Fault: "close-watch", At: at, Params: params}
	}
	tests := []struct {
		name string
		p, q Plan
		want bool
	}{
		{"equal - nil and empty plan - pass", Plan{}, Plan{Decisions: []Decision{}}, true},
		{"equal - nil and empty Params - pass", Plan{Decisions: []Decision{{Fault: "reset"}}}, Plan{Decisions: []Decision{{Fault: "reset", Params: map[string]int{}}}}, true},
		{"equal - explicit and implicit default - pass", Plan{Decisions: []Decision{cw(1, nil)}}, Plan{Decisions: []Decision{cw(1, map[string]int{"after": 0})}}, true},
		{"equal - zero and absent where-parameter - pass", Plan{Decisions: []Decision{cw(-1, nil)}}, Plan{Decisions: []Decision{cw(-1, map[string]int{"watch": 0})}}, true},
		{"equal - other value - fail", Plan{Decisions: []Decision{cw(1, nil)}}, Plan{Decisions: []Decision{cw(1, map[string]int{"after": 5})}}, false},
		{"equal - other At - fail", Plan{Decisions: []Decision{cw(1, nil)}}, Plan{Decisions: []Decision{cw(2, nil)}}, false},
		{"equal - other fault - fail", Plan{Decisions: []Decision{{Fault: "reset"}}}, Plan{Decisions: []Decision{{Fault: "reorder"}}}, false},
		{"equal - other order - fail", Plan{Decisions: []Decision{cw(1, nil), cw(2, nil)}}, Plan{Decisions: []Decision{cw(2, nil), cw(1, nil)}}, false},
		{"equal - other length - fail", Plan{Decisions: []Decision{cw(1, nil)}}, Plan{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Equal(tt.q); got != tt.want {
				t.Errorf("Equal: got %v, want %v", got, tt.want)
			}
			if got := tt.q.Equal(tt.p); got != tt.want {
				t.Errorf("Equal reversed: got %v, want %v", got, tt.want)
			}
			if got := reflect.DeepEqual(tt.p.Canonical(), tt.q.Canonical()); got != tt.want {
				t.Errorf("DeepEqual of canonical forms: got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct {
		name string
		d    Decision
		want Decision
	}{
		{"canonical - default filled - pass", Decision{Fault: "delay", At: 3}, Decision{Fault: "delay", At: 3, Params: map[string]int{"ms": 100}}},
		{"canonical - zero where dropped - pass", Decision{Fault: "reset", At: -1, Params: map[string]int{"frame": 0}}, Decision{Fault: "reset", At: -1}},
		{"canonical - where kept - pass", Decision{Fault: "reset", At: -1, Params: map[string]int{"frame": 2}}, Decision{Fault: "reset", At: -1, Params: map[string]int{"frame": 2}}},
		{"canonical - unknown fault kept - pass", Decision{Fault: "nope", Params: map[string]int{"x": 1, "y": 0}}, Decision{Fault: "nope", Params: map[string]int{"x": 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Canonical(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Canonical(): got %+v, want %+v", got, tt.want)
			}
		})
	}
}
