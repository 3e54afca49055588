package scale

import (
	"fmt"
	"io"
	"strings"
)

// Targets are the bounds the table checks.
type Targets struct {
	// LoadRSS bounds load's peak RSS as a multiple of the decoded size of
	// the largest state.
	LoadRSS float64
	// Sync bounds serve's start to a synced informer as a multiple of
	// decoding the initial state alone, for cassettes of SyncObjects
	// objects or more.
	Sync        float64
	SyncObjects float64
	// Replay is the least replay throughput, as a fraction of decoding
	// alone.
	Replay float64
}

// DefaultTargets are lwreplay's: peak RSS ≤ 3× the largest state decoded,
// 100k objects served start-to-synced within 2× of decoding them, replay
// ≥ 0.8× decoding alone.
var DefaultTargets = Targets{LoadRSS: 3, Sync: 2, SyncObjects: 100000, Replay: 0.8}

// Row is one line of the table.
type Row struct {
	Measurement, Cassette, Value, Reference string
	Ratio                                   float64
	// Target is "" where none is set; Met says whether it is met.
	Target string
	Met    bool
}

// Rows returns the table's rows: each measurement, for each result that
// holds the children it is made of.
func Rows(results []Result, t Targets) []Row {
	var rows []Row
	for _, m := range []struct {
		row  func(Result, Targets) Row
		from []Measure
	}{
		{loadRow, []Measure{Idle, Load, State}},
		{syncRow(ServeList), []Measure{ServeList, DecodeList}},
		{syncRow(ServeWatchList), []Measure{ServeWatchList, DecodeList}},
		{replayRow, []Measure{Replay}},
		{recorderRow, []Measure{Recorder}},
	} {
		for _, r := range results {
			if r.has(m.from...) {
				rows = append(rows, m.row(r, t))
			}
		}
	}
	return rows
}

func mib(b float64) string { return fmt.Sprintf("%.0f MiB", b/(1<<20)) }

func loadRow(r Result, t Targets) Row {
	rss, st := float64(r.child(Load).MaxRSS), r.child(State).Figures
	ratio := ratio(rss, st["bytes"])
	return Row{
		Measurement: "load: peak RSS", Cassette: r.Cassette.Name,
		Value:     fmt.Sprintf("%s (an idle child: %s)", mib(rss), mib(float64(r.child(Idle).MaxRSS))),
		Reference: fmt.Sprintf("%s: largest state decoded (%.0f objects)", mib(st["bytes"]), st["objects"]),
		Ratio:     ratio, Target: fmt.Sprintf("≤ %g", t.LoadRSS), Met: ratio <= t.LoadRSS,
	}
}

func syncRow(m Measure) func(Result, Targets) Row {
	return func(r Result, t Targets) Row {
		s, d := r.child(m).Figures, r.child(DecodeList).Figures
		path := "LIST"
		if m == ServeWatchList {
			path = "WatchList"
		}
		row := Row{
			Measurement: "serve → synced, " + path, Cassette: r.Cassette.Name,
			Value:     fmt.Sprintf("%.0f ms (listening at %.0f ms; serve's peak RSS %s)", s["ms"], s["listen_ms"], mib(s["serve_rss"])),
			Reference: fmt.Sprintf("%.0f ms: decode the initial LIST (%.0f objects)", d["ms"], d["objects"]),
			Ratio:     ratio(s["ms"], d["ms"]),
		}
		if d["objects"] >= t.SyncObjects {
			row.Target, row.Met = fmt.Sprintf("≤ %g", t.Sync), row.Ratio <= t.Sync
		}
		return row
	}
}

func replayRow(r Result, t Targets) Row {
	rp := r.child(Replay).Figures
	rate, ref := ratio(rp["events"]*rp["rounds"], rp["replay_s"]), ratio(rp["events"]*rp["rounds"], rp["decode_s"])
	ratio := ratio(rate, ref)
	return Row{
		Measurement: "in-process replay", Cassette: r.Cassette.Name,
		Value:     fmt.Sprintf("%.0f events/s (%.0f events, %.0f rounds)", rate, rp["events"], rp["rounds"]),
		Reference: fmt.Sprintf("%.0f events/s: decode the watch bytes alone", ref),
		Ratio:     ratio, Target: fmt.Sprintf("≥ %g", t.Replay), Met: ratio >= t.Replay,
	}
}

func recorderRow(r Result, _ Targets) Row {
	f := r.child(Recorder).Figures
	ratio := ratio(f["cpu_on"], f["cpu_off"])
	return Row{
		Measurement: fmt.Sprintf("recorder CPU, %.0f-event watch", f["events"]), Cassette: r.Cassette.Name,
		Value:     fmt.Sprintf("%+.1f%% (%.2f s CPU, %.0f rounds)", (ratio-1)*100, f["cpu_on"], f["rounds"]),
		Reference: fmt.Sprintf("%.2f s CPU: the same watches without recorder", f["cpu_off"]),
		Ratio:     ratio,
	}
}

// ratio returns a / b, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Table writes rows as a markdown table.
func Table(w io.Writer, rows []Row) error {
	var b strings.Builder
	b.WriteString("| measurement | cassette | value | reference | ratio | target | met? |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		target, met := "—", "—"
		if r.Target != "" {
			target, met = r.Target, map[bool]string{true: "yes", false: "**no**"}[r.Met]
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f | %s | %s |\n", r.Measurement, r.Cassette, r.Value, r.Reference, r.Ratio, target, met)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
