package replayer

import (
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

func TestParsePace(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string // the parsed pace's String; "" for an error
		wantErr bool
	}{
		{name: "pace - max - pass", in: "max", want: "max"},
		{name: "pace - recorded - pass", in: "recorded", want: "recorded"},
		{name: "pace - factor - pass", in: "10x", want: "10x"},
		{name: "pace - fraction - pass", in: "0.5x", want: "0.5x"},
		{name: "pace - word - fail", in: "fast", wantErr: true},
		{name: "pace - no x - fail", in: "10", wantErr: true},
		{name: "pace - zero - fail", in: "0x", wantErr: true},
		{name: "pace - negative - fail", in: "-2x", wantErr: true},
		{name: "pace - not a number - fail", in: "NaNx", wantErr: true},
		{name: "pace - infinite - fail", in: "Infx", wantErr: true},
		{name: "pace - overflowing - fail", in: "1e400x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePace(tt.in)
			switch {
			case tt.wantErr && err == nil:
				t.Errorf("ParsePace(%q): got %s, want an error", tt.in, p)
			case !tt.wantErr && err != nil:
				t.Errorf("ParsePace(%q): got error %v, want %s", tt.in, err, tt.want)
			case !tt.wantErr && p.String() != tt.want:
				t.Errorf("ParsePace(%q): got %s, want %s", tt.in, p, tt.want)
			}
		})
	}
}

func TestAvailable(t *testing.T) {
	h := scaleHistory(t, 20, 50) // events recorded from a second after the list on
	l, _ := h.Log(history.Resource{Version: "v1", Resource: "pods"})
	tests := []struct {
		name string
		pace Pace
		want int
	}{
		{"available - max - every event - pass", Pace{Mode: PaceMax}, l.End()},
		{"available - recorded, at the start - no event yet - pass", Pace{Mode: PaceRecorded, Factor: 1}, 0},
		{"available - a factor past the clock's range - every event - pass", Pace{Mode: PaceRecorded, Factor: 1e300}, l.End()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(h, WithPace(tt.pace))
			for call := range 3 { // the count of events reached is kept between calls
				if got := s.store.available(l); got != tt.want {
					t.Errorf("call %d: available: got %d, want %d", call, got, tt.want)
				}
			}
		})
	}
}
