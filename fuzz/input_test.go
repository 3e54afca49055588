package fuzz

import (
	"fmt"
	"os"
	"strings"
	"testing"

	clientfeatures "k8s.io/client-go/features"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/internal/serving"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// faultBytes returns two fault bytes (data[2:] form) decoding to
// a legal and a breaking fault.
func faultBytes(t *testing.T) (legal, breaking byte) {
	t.Helper()
	found := 0
	for b := faults.FirstFaultByte; found != 3; b++ {
		p := faults.Decode([]byte{byte(b)})
		f, _ := faults.Lookup(p.Decisions[0].Fault)
		switch {
		case f.Class == faults.Legal && found&1 == 0:
			legal, found = byte(b), found|1
		case f.Class == faults.Breaking && found&2 == 0:
			breaking, found = byte(b), found|2
		}
		if b == 0xff {
			t.Fatalf("fault bytes: got found=%d, want a legal and a breaking fault", found)
		}
	}
	return legal, breaking
}

func TestDecodeInput(t *testing.T) {
	t.Parallel()
	legal, breaking := faultBytes(t)
	on, off := true, false
	tests := []struct {
		name      string
		data      []byte
		opts      Options
		cassette  int
		watchList bool
		faults    int
	}{
		{name: "decode input - empty - first cassette, WatchList on, no fault - pass", data: nil, watchList: true},
		{name: "decode input - cassette byte past count - wraps - pass", data: []byte{4}, cassette: 1, watchList: true},
		{name: "decode input - even path byte - WatchList off - pass", data: []byte{0, 2}, watchList: false},
		{name: "decode input - odd path byte - WatchList on - pass", data: []byte{2, 3}, cassette: 2, watchList: true},
		{name: "decode input - fixed WatchList off - path byte ignored - pass", data: []byte{0, 1}, opts: Options{WatchList: &off}, watchList: false},
		{name: "decode input - fixed WatchList on - path byte ignored - pass", data: []byte{0, 0}, opts: Options{WatchList: &on}, watchList: true},
		{name: "decode input - legal and breaking fault - breaking dropped - pass", data: []byte{0, 1, legal, breaking}, watchList: true, faults: 1},
		{name: "decode input - breaking allowed - both kept - pass", data: []byte{0, 1, legal, breaking}, opts: Options{AllowBreaking: true}, watchList: true, faults: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := decodeInput(tc.data, 3, tc.opts)
			if in.cassette != tc.cassette {
				t.Errorf("cassette: got %d, want %d", in.cassette, tc.cassette)
			}
			if in.watchList != tc.watchList {
				t.Errorf("watchList: got %v, want %v", in.watchList, tc.watchList)
			}
			if got := len(in.plan.Decisions); got != tc.faults {
				t.Errorf("decisions: got %d (%s), want %d", got, in.plan, tc.faults)
			}
		})
	}
}

func TestViolations(t *testing.T) {
	t.Parallel()
	legal := faults.Plan{Decisions: []faults.Decision{{Fault: "close-watch", At: 3, Params: map[string]int{"after": 1}}}}
	fired := []faults.Firing{{Point: faults.Point{Index: 3, Kind: faults.WatchPoint, Request: 2}, Fault: "close-watch", Detail: "after event 1"}}
	tests := []struct {
		name  string
		obs   *observe.Observation
		names []string
		in    input
		want  []string
	}{
		{name: "violations - no truth, legal plan - report names everything - pass",
			obs: &observe.Observation{Fired: fired}, names: []string{"converged"},
			in: input{cassette: 1, watchList: true, plan: legal},
			want: []string{"invariant converged: ", "cassette: c.yaml\n", "WatchList: on\n",
				"plan: " + legal.String() + "\n", "fired: " + faults.Story(fired) + "\n", `input: []byte("\x01\x01\x80")`}},
		{name: "violations - no truth, no plan - says no fault - pass",
			obs: &observe.Observation{ConvergedAt: -1}, names: []string{"live"}, in: input{},
			want: []string{"invariant live: ", "WatchList: off\n", "plan: no fault\n", "fired: no fault fired\n"}},
		{name: "violations - clean stop holds - empty report - pass",
			obs: &observe.Observation{}, names: []string{"clean-stop"}, in: input{}, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Campaign{judge: judge{opts: Options{Invariants: tc.names}}}
			out := &Outcome{Input: []byte{1, 1, 0x80}, Cassette: "c.yaml", WatchList: tc.in.watchList, Plan: tc.in.plan}
			c.judge.verdict(out, tc.obs, nil)
			got := out.Report
			if len(tc.want) == 0 && got != "" {
				t.Errorf("report: got %q, want empty", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("report: got %q, want it to contain %q", got, w)
				}
			}
		})
	}
}

func TestFiredBreaking(t *testing.T) {
	t.Parallel()
	_, breakingByte := faultBytes(t)
	breaking := faults.Decode([]byte{breakingByte}).Decisions[0].Fault
	tests := []struct {
		name  string
		fired []string
		want  []string
	}{
		{name: "fired breaking - none fired - none - pass", fired: nil, want: nil},
		{name: "fired breaking - legal only - none - pass", fired: []string{"close-watch"}, want: nil},
		{name: "fired breaking - breaking twice and legal - named once - pass",
			fired: []string{breaking, "close-watch", breaking}, want: []string{breaking}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := &observe.Observation{}
			for _, f := range tc.fired {
				obs.Fired = append(obs.Fired, faults.Firing{Fault: f})
			}
			if got := serving.FiredBreaking(obs); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("breaking: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAllowRandSeed(t *testing.T) {
	tests := []struct{ name, env, want string }{
		{name: "allow rand seed - no GODEBUG - set - pass", env: "", want: "randseednop=0"},
		{name: "allow rand seed - other settings - appended - pass", env: "http2client=0", want: "http2client=0,randseednop=0"},
		{name: "allow rand seed - the process chose - kept - pass", env: "randseednop=1", want: "randseednop=1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GODEBUG", tc.env)
			allowRandSeed()
			if got := os.Getenv("GODEBUG"); got != tc.want {
				t.Errorf("GODEBUG: got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestInputLayout holds the input layout (InputLayout 1) stable. Each of
// these inputs, some of them saved in corpora and reports, must decode to
// the same Input on every later lwreplay, and encode back to itself.
func TestInputLayout(t *testing.T) {
	t.Parallel()
	if InputLayout != 1 {
		t.Fatalf("InputLayout: got %d, want 1 (a new layout must still read layout 1's inputs: add its cases here)", InputLayout)
	}
	off := []clientfeatures.Feature{"AtomicFIFO", "InOrderInformersBatchProcess"}
	tests := []struct {
		name      string
		data      []byte
		want      Input
		canonical []byte // Bytes of the decoded input; nil: data itself
	}{
		{name: "layout - empty - cassette 0, WatchList, no gate off, no plan - pass", data: nil,
			want: Input{WatchList: true}, canonical: []byte{0, 1}},
		{name: "layout - one byte - the cassette, WatchList - pass", data: []byte{7},
			want: Input{Cassette: 7, WatchList: true}, canonical: []byte{7, 1}},
		{name: "layout - path byte 0 - LIST+WATCH - pass", data: []byte{2, 0}, want: Input{Cassette: 2}},
		{name: "layout - path byte 1 - WatchList - pass", data: []byte{2, 1}, want: Input{Cassette: 2, WatchList: true}},
		{name: "layout - path byte 6 - LIST+WATCH, AtomicFIFO and InOrderInformersBatchProcess off - pass", data: []byte{0, 6},
			want: Input{GatesOff: off}},
		{name: "layout - path byte 3 - WatchList, AtomicFIFO off - pass", data: []byte{0, 3},
			want: Input{WatchList: true, GatesOff: off[:1]}},
		{name: "layout - unused bits 3-7 - ignored - pass", data: []byte{0, 0xf9}, want: Input{WatchList: true}, canonical: []byte{0, 1}},
		{name: "layout - plan bytes - kept as they are - pass", data: []byte("\x00\x01\x00\x00\xd5"),
			want: Input{WatchList: true, Plan: []byte{0, 0, 0xd5}}},
		{name: "layout - the tombstone example's found input - LIST+WATCH, unused bits ignored - pass", data: []byte("000\x86"),
			want: Input{Cassette: '0', Plan: []byte{'0', 0x86}}, canonical: []byte("0\x000\x86")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DecodeInput(tc.data)
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tc.want) {
				t.Errorf("DecodeInput(%q): got %+v, want %+v", tc.data, got, tc.want)
			}
			want := tc.canonical
			if want == nil {
				want = tc.data
			}
			if b := got.Bytes(); string(b) != string(want) {
				t.Errorf("Bytes: got %q, want %q", b, want)
			}
		})
	}
}

// TestHostable checks the plan a campaign runs: opaque-rv is dropped beside
// actors (the replay takes no write under it, and actors write), and kept
// without them.
func TestHostable(t *testing.T) {
	labeller, _ := testutil.LabellingActor("labeller", nil)
	plan, err := faults.ParseText("opaque-rv close-watch:after=2")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{name: "hostable - opaque-rv, no actor - kept - pass", want: "opaque-rv close-watch:after=2"},
		{name: "hostable - opaque-rv beside an actor - dropped - pass", o: Options{Actors: []actor.Actor{labeller}}, want: "close-watch:after=2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := hostable(plan, tc.o).String(); got != tc.want {
				t.Errorf("plan: got %q, want %q", got, tc.want)
			}
		})
	}
}
