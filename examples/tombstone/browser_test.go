package tombstone

import (
	"bytes"
	"cmp"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/timeline"
	"github.com/lwreplay/lwreplay/timeline/timelinetest"
)

// ShotsEnv names the environment variable that, when set, says where
// TestTimelineInBrowser copies its screenshots (hack/timeline-screenshot.sh
// sets it to regenerate the README's).
const ShotsEnv = "LWREPLAY_TIMELINE_SHOTS"

// chromium returns the chromium binary, installed by
// e2e/install-chromium.sh where missing; it skips t loudly when it
// cannot be installed.
func chromium(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("../../e2e/install-chromium.sh")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("SKIPPED: e2e/install-chromium.sh could not install chromium: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// browse runs headless chromium on a page with args and returns its
// standard output.
func browse(t *testing.T, bin, page string, args ...string) string {
	t.Helper()
	all := []string{"--headless", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=10000"}
	if os.Geteuid() == 0 {
		all = append(all, "--no-sandbox") // chromium's sandbox refuses root
	}
	all = append(append(all, args...), "file://"+page)
	cmd := exec.Command(bin, all...)
	cmd.Dir = filepath.Dir(page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("chromium %v: got no exit in 2 minutes, want one", args)
	}
	if err != nil {
		t.Fatalf("chromium %v: got error %v, want none\n%s", args, err, stderr.String())
	}
	return string(out)
}

var bodyAttrs = regexp.MustCompile(`<body[^>]*data-rendered="([^"]*)"[^>]*data-marks="(\d+)"`)

var (
	drawnTag = regexp.MustCompile(`<(?:circle|rect|path)\b[^>]*\bdata-m="[^"]*"[^>]*>`)
	drawnIDs = regexp.MustCompile(`\bdata-m="([^"]*)"`)
	drawnXs  = regexp.MustCompile(`\bdata-x="([^"]*)"`)
)

// drawnAt reads where a rendered page's drawing placed each mark. By the
// mark's id (data-m, its position in the page's data), it returns the x
// it was drawn at (data-x). A cluster lists its marks and their xs alike.
func drawnAt(t *testing.T, dom string) map[int]float64 {
	t.Helper()
	at := map[int]float64{}
	for _, tag := range drawnTag.FindAllString(dom, -1) {
		ids, xs := drawnIDs.FindStringSubmatch(tag), drawnXs.FindStringSubmatch(tag)
		if xs == nil {
			t.Fatalf("drawn mark %s: got no data-x, want where it was drawn", tag)
		}
		idl, xl := strings.Fields(ids[1]), strings.Fields(xs[1])
		if len(idl) != len(xl) {
			t.Fatalf("drawn marks %s: got %d ids and %d xs, want one x each", tag, len(idl), len(xl))
		}
		for i := range idl {
			id, err1 := strconv.Atoi(idl[i])
			x, err2 := strconv.ParseFloat(xl[i], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("drawn mark %s: got id %q at %q, want numbers", tag, idl[i], xl[i])
			}
			at[id] = x
		}
	}
	return at
}

// checkRecordedAxis loads the page with its recorded-offsets button
// pressed. It checks, from the drawing, that it draws exactly the marks
// with a recorded offset, in the order of their offsets.
func checkRecordedAxis(t *testing.T, bin, page, html string) {
	t.Helper()
	const press = `<script>document.getElementById("recaxis").click();</script>`
	if err := os.WriteFile(page, []byte(strings.Replace(html, "</body>", press+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := browse(t, bin, page, "--dump-dom")
	if m := bodyAttrs.FindStringSubmatch(dom); m == nil || m[1] != "ok" {
		t.Fatalf("recorded axis: got body %q, want data-rendered=\"ok\"", firstLine(dom, "<body"))
	}
	if !strings.Contains(dom, `data-axis="recorded"`) {
		t.Fatalf("recorded axis: got chart %q, want data-axis=\"recorded\"", firstLine(dom, `id="chart"`))
	}
	p, err := timelinetest.Parse(html)
	if err != nil {
		t.Fatalf("Parse: got error %v, want the page's data", err)
	}
	at := drawnAt(t, dom)
	var drawn []timelinetest.Mark
	for _, m := range p.Marks() {
		_, ok := at[m.ID]
		if ok != (m.Recorded >= 0) {
			t.Errorf("recorded axis, %s (recorded offset %v ms): got drawn=%v, want it drawn only with an offset", m.Label, m.Recorded, ok)
		}
		if ok {
			drawn = append(drawn, m)
		}
	}
	slices.SortStableFunc(drawn, func(a, b timelinetest.Mark) int { return cmp.Compare(a.Recorded, b.Recorded) })
	for i := 1; i < len(drawn); i++ {
		if a, b := drawn[i-1], drawn[i]; at[b.ID] < at[a.ID] {
			t.Errorf("recorded axis: got %q (recorded %v ms) drawn left of %q (recorded %v ms), want the offsets' order", b.Label, b.Recorded, a.Label, a.Recorded)
		}
	}
	if len(drawn) == 0 {
		t.Errorf("recorded axis: got no mark drawn, want the truth's")
	}
}

// checkOneClock checks, from the drawing, that no handler delivery is
// drawn left of the serving of the event it delivers. It checks that no
// mark of a row without a run time is drawn on the time axis.
func checkOneClock(t *testing.T, html, dom string) {
	t.Helper()
	p, err := timelinetest.Parse(html)
	if err != nil {
		t.Fatalf("Parse: got error %v, want the page's data", err)
	}
	at := drawnAt(t, dom)
	for _, m := range p.Marks() {
		if _, drawn := at[m.ID]; drawn && m.Untimed {
			t.Errorf("%s (row %q, no run time): got it drawn on the time axis, want it left out", m.Label, m.Row)
		}
	}
	paired, early := p.DeliveryOrder(func(m timelinetest.Mark) (float64, bool) { x, ok := at[m.ID]; return x, ok })
	t.Logf("drawn deliveries paired with the drawn serving of their event: %d", paired)
	if paired == 0 || len(early) > 0 {
		t.Errorf("drawn deliveries paired with their served events: got %d, %d of them drawn left of their event (%q), want some and none left", paired, len(early), early)
	}
}

// blank reports whether a screenshot is (nearly) one colour: fewer than
// 1% of its pixels differ from its top-left pixel.
func blank(img image.Image) bool {
	b := img.Bounds()
	r0, g0, b0, _ := img.At(b.Min.X, b.Min.Y).RGBA()
	differ := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if r != r0 || g != g0 || bb != b0 {
				differ++
			}
		}
	}
	return differ*100 < b.Dx()*b.Dy()
}

func TestTimelineInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("short: starts a browser")
	}
	bin := chromium(t)
	dir := t.TempDir()
	found, out := foundRunTimeline(t)
	clean, _ := runTimeline(t, foundByFuzzing[:2]) // the same cassette and client path, no fault
	files, err := cassette.LoadAll("../../cassettes/real-configmaps-pods-watchlist.yaml")
	if err != nil {
		t.Fatalf("LoadAll: got error %v, want none", err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	var shipped bytes.Buffer
	if err := timeline.Write(&shipped, timeline.FromHistory(h, "lwreplay timeline: real-configmaps-pods-watchlist.yaml"), h.Order()); err != nil {
		t.Fatalf("Write: got error %v, want none", err)
	}
	wantMarks := 0
	for _, l := range h.Logs {
		wantMarks += len(l.Events) + len(l.Marks) + len(l.Errors)
	}
	o := out.Observation
	p, err := timelinetest.Parse(clean)
	if err != nil {
		t.Fatalf("Parse: got error %v, want the page's data", err)
	}
	tests := []struct {
		name      string
		file      string
		html      string
		wantMarks int
		run       bool // a run's page: one clock
		shot      bool // its screenshot is one of the docs' (ShotsEnv)
	}{
		{name: "browser - shipped WatchList cassette - pass", file: "timeline-cassette", html: shipped.String(), wantMarks: wantMarks, shot: true},
		{name: "browser - found failing run - pass", file: "timeline-found-run", html: found,
			wantMarks: len(o.TruthLog.Events) + len(o.TruthLog.Marks) + len(o.TruthLog.Errors) + len(o.Requests) + len(o.Fired) + len(o.Deliveries), run: true, shot: true},
		{name: "browser - fault-free run - pass", file: "timeline-clean-run", html: clean, wantMarks: len(p.Marks()), run: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page := filepath.Join(dir, tc.file+".html")
			if err := os.WriteFile(page, []byte(tc.html), 0o644); err != nil {
				t.Fatal(err)
			}
			dom := browse(t, bin, page, "--dump-dom")
			m := bodyAttrs.FindStringSubmatch(dom)
			if m == nil || m[1] != "ok" {
				t.Fatalf("page script: got body %q, want data-rendered=\"ok\" (the script ran without error)", firstLine(dom, "<body"))
			}
			if m[2] != fmt.Sprint(tc.wantMarks) {
				t.Errorf("marks the script read: got %s, want %d", m[2], tc.wantMarks)
			}
			if tc.run {
				checkOneClock(t, tc.html, dom)
				checkRecordedAxis(t, bin, filepath.Join(dir, tc.file+"-recorded.html"), tc.html)
			}
			shot := filepath.Join(dir, tc.file+".png")
			browse(t, bin, page, "--screenshot="+shot, "--window-size=1400,800")
			f, err := os.Open(shot)
			if err != nil {
				t.Fatalf("screenshot: got error %v, want a file", err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatalf("screenshot: got error %v, want a PNG", err)
			}
			if blank(img) {
				t.Errorf("screenshot: got a blank image, want the timeline drawn")
			}
			if to := os.Getenv(ShotsEnv); to != "" && tc.shot {
				data, err := os.ReadFile(shot)
				if err == nil {
					err = os.WriteFile(filepath.Join(to, tc.file+".png"), data, 0o644)
				}
				if err != nil {
					t.Errorf("copying the screenshot to %s: %v", to, err)
				}
			}
		})
	}
}

// firstLine returns the line of s that holds sub, or s's first 200 bytes.
func firstLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return s[:min(len(s), 200)]
}
