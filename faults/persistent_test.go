package faults

import (
	"errors"
	"strings"
	"testing"
)

func TestPersistentText(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    Decision
		wantErr error
		back    string // String of the result
	}{
		{name: "persistent - from=1 - holds from point 1 - pass", text: "close-watch:after=3,from=1",
			want: Decision{Fault: "close-watch", At: 1, Persistent: true, Params: map[string]int{"after": 3}}, back: "close-watch:after=3,from=1"},
		{name: "persistent - at=1 - one point - pass", text: "close-watch:after=3,at=1",
			want: Decision{Fault: "close-watch", At: 1, Params: map[string]int{"after": 3}}, back: "close-watch:after=3,at=1"},
		{name: "persistent - a fault without a persistent form - fail", text: "opaque-rv:from=0", wantErr: ErrParam},
		{name: "persistent - from with a where-parameter - fail", text: "close-watch:from=1,watch=2", wantErr: ErrParam},
		{name: "persistent - from and at - fail", text: "close-watch:from=1,at=2", wantErr: ErrParam},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseFault(tc.text)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("ParseFault(%q): got error %v, want %v", tc.text, err, tc.wantErr)
				}
				return
			}
			if err != nil || !d.Equal(tc.want) {
				t.Fatalf("ParseFault(%q): got %+v, %v, want %+v", tc.text, d, err, tc.want)
			}
			if got := d.String(); got != tc.back {
				t.Errorf("String: got %q, want %q", got, tc.back)
			}
		})
	}
}

func TestPersistentBytes(t *testing.T) {
	closeAt := func(at int, persistent bool) Decision {
		return Decision{Fault: "close-watch", At: at, Persistent: persistent, Params: map[string]int{"after": 0}}
	}
	k := 0 // the choice of close-watch:after=0
	for i, c := range choices() {
		if c.Fault == "close-watch" {
			k = i
			break
		}
	}
	opaque := 0
	for i, c := range choices() {
		if c.Fault == "opaque-rv" {
			opaque = i
		}
	}
	tests := []struct {
		name  string
		bytes []byte
		want  Plan
	}{
		{name: "bytes - 0x80+k at point 1 - one point - pass", bytes: []byte{0, byte(FirstFaultByte + k)}, want: Plan{Decisions: []Decision{closeAt(1, false)}}},
		{name: "bytes - 0xC0+k at point 1 - from point 1 on - pass", bytes: []byte{0, byte(FirstPersistentByte + k)}, want: Plan{Decisions: []Decision{closeAt(1, true)}}},
		{name: "bytes - a persistent byte of a fault with no persistent form - one point - pass", bytes: []byte{byte(FirstPersistentByte + opaque)},
			want: Plan{Decisions: []Decision{{Fault: "opaque-rv", At: 0}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Decode(tc.bytes)
			if !got.Equal(tc.want) {
				t.Fatalf("Decode(%q): got %s, want %s", tc.bytes, got, tc.want)
			}
			enc, err := Encode(got)
			if err != nil || !Decode(enc).Equal(got) {
				t.Errorf("Encode(%s): got %q, %v, want bytes that decode back", got, enc, err)
			}
		})
	}
	if len(choices()) > int(FirstPersistentByte-FirstFaultByte) {
		t.Errorf("choices: got %d, want at most %d (one byte range each form)", len(choices()), FirstPersistentByte-FirstFaultByte)
	}
}

func TestPersistentPoints(t *testing.T) {
	d := Decision{Fault: "close-watch", At: 3, Persistent: true, Params: map[string]int{"after": 1}}
	tests := []struct {
		name string
		pt   Point
		want bool
	}{
		{name: "applies - watch point before From - no - pass", pt: Point{Index: 2, Kind: WatchPoint}, want: false},
		{name: "applies - watch point at From - yes - pass", pt: Point{Index: 3, Kind: WatchPoint}, want: true},
		{name: "applies - every later watch point - yes - pass", pt: Point{Index: 300, Kind: WatchPoint}, want: true},
		{name: "applies - a later LIST point - no - pass", pt: Point{Index: 301, Kind: ListPoint}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := d.Applies(tc.pt); got != tc.want {
				t.Errorf("Applies(%+v): got %v, want %v", tc.pt, got, tc.want)
			}
		})
	}
	if (Plan{Decisions: []Decision{d}}).Spent(1000) {
		t.Errorf("Spent(1000): got true, want false (a persistent decision never is)")
	}
	if got := Describe(Plan{Decisions: []Decision{d}}); !strings.HasPrefix(got, "from point 3 on: close the watch after 1 event") {
		t.Errorf("Describe: got %q, want it to start with %q", got, "from point 3 on: close the watch after 1 event")
	}
}

func TestPersistentStory(t *testing.T) {
	w := func(n int) Point { return Point{Index: n, Kind: WatchPoint, Request: n} }
	fired := []Firing{
		{Point: w(1), Fault: "close-watch", Detail: "after event 3, rv 84", Persistent: true, Decision: 0},
		{Point: Point{Index: 2, Kind: ListPoint, Request: 1}, Fault: "http-error", Detail: "503", Decision: 1},
		{Point: w(2), Fault: "close-watch", Detail: "after event 3, rv 84", Persistent: true, Decision: 0},
		{Point: w(1200), Fault: "close-watch", Detail: "after event 3, rv 85", Persistent: true, Decision: 0},
	}
	want := "from watch #1 on: watch #1 closed (after event 3, rv 84), 3 times, the last: watch #1200 closed (after event 3, rv 85); " +
		"LIST #1 answered an HTTP error (503)"
	if got := Story(fired); got != want {
		t.Errorf("Story:\ngot  %q\nwant %q", got, want)
	}
	if got := thousands(1200); got != "1,200" {
		t.Errorf("thousands(1200): got %q, want %q", got, "1,200")
	}
}

func TestPersistsDocumented(t *testing.T) {
	for _, f := range Registry {
		t.Run("persists - "+f.Name+" - pass", func(t *testing.T) {
			if f.PersistsWhy == "" {
				t.Errorf("PersistsWhy: got none, want why a server keeps doing it (or why it has no persistent form)")
			}
			if f.Class == Breaking && f.Persists == PersistsLegal {
				t.Errorf("Persists: got legal for a breaking fault, want breaking")
			}
			if f.Point == PlanPoint && f.Persists != Once {
				t.Errorf("Persists: got %s for a plan-level fault, want once", f.Persists)
			}
		})
	}
}
