package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
)

// watchReadLimit is how long, in the bubble's virtual time, a replayed
// watch is read while it has sent fewer frames than were recorded. It is
// below the replayer's bookmark interval (a minute, as kube-apiserver's),
// so that no periodic bookmark comes in.
const watchReadLimit = 30 * time.Second

// wireFrame is one watch event as sent.
type wireFrame struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// frameView is a watch event decoded for comparison.
type frameView struct {
	typ        string
	obj        map[string]any
	initialEnd bool
}

func (f frameView) key() string {
	md, _ := f.obj["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	return ns + "/" + name
}

func (f frameView) String() string {
	md, _ := f.obj["metadata"].(map[string]any)
	rv, _ := md["resourceVersion"].(string)
	if f.typ == string(history.Error) {
		return fmt.Sprintf("ERROR %v %v", f.obj["code"], f.obj["reason"])
	}
	return f.typ + " " + f.key() + "@" + rv
}

func viewFrame(wf wireFrame) (frameView, error) {
	obj, err := jsonMap([]byte(wf.Object))
	if err != nil {
		return frameView{}, err
	}
	f := frameView{typ: wf.Type, obj: obj}
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			f.initialEnd = ann[history.InitialEventsEndAnnotation] == "true"
		}
	}
	return f, nil
}

// periodic reports whether f is a bookmark whose presence depends on
// timing: any bookmark but the one ending a WatchList's initial events.
func (f frameView) periodic() bool { return f.typ == string(history.Bookmark) && !f.initialEnd }

// bookmarkShape returns what is wrong with a bookmark's shape, "" if
// nothing: it names its kind and apiVersion and carries a resourceVersion.
func bookmarkShape(f frameView, kind, apiVersion string) string {
	md, _ := f.obj["metadata"].(map[string]any)
	rv, _ := md["resourceVersion"].(string)
	switch {
	case f.obj["kind"] != kind || f.obj["apiVersion"] != apiVersion:
		return fmt.Sprintf("kind %v apiVersion %v, want %s %s", f.obj["kind"], f.obj["apiVersion"], kind, apiVersion)
	case rv == "":
		return "no metadata.resourceVersion"
	}
	return ""
}

// sequenceStats counts what checkSequence compared.
type sequenceStats struct {
	lists, watches, errors, discovery, frames int
}

// checkSequence sends every recorded GET of files, in recorded order, to a
// replayer of h (in-process, in a synctest bubble). It compares each
// answer's status code with the recorded one. For lists it compares
// resourceVersion, the presence of continue and remainingItemCount, and
// every item. For error answers it compares code and reason. For watches it
// compares the events in order with their objects, ERROR code and reason,
// and the initial-events-end bookmark's shape.
//
// Where the semantics legitimately differ, shapes are compared, not values.
// Periodic bookmarks depend on when the real server's timer fired. So they
// are checked for shape, and left out of the order. The initial events of a
// WatchList stream are compared as a set, since their order is the server's
// store order. A bookmark's resourceVersion may be past the newest
// object's; it is checked to be present only.
func checkSequence(t *testing.T, files []*cassette.File, h *history.History) sequenceStats {
	t.Helper()
	var st sequenceStats
	synctest.Test(t, func(t *testing.T) {
		rt := replayer.New(h).Transport()
		for _, f := range files {
			for n, i := range f.Interactions {
				if i.Method != http.MethodGet {
					continue
				}
				where := fmt.Sprintf("%s: interaction %d: %s", f.Path, n, i.URL)
				compareInteraction(t, where, rt, h, i, &st)
			}
		}
	})
	return st
}

func compareInteraction(t *testing.T, where string, rt http.RoundTripper, h *history.History, i cassette.Interaction, st *sequenceStats) {
	u, err := url.Parse(i.URL)
	if err != nil {
		t.Errorf("%s: url: %v", where, err)
		return
	}
	q, isResource, err := history.ParseRequestInfo(u)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), watchReadLimit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, i.URL, nil)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	req.Header.Set("Accept", "application/json")
	if a := i.RequestHeader.Get("Accept"); a != "" {
		req.Header.Set("Accept", a)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Errorf("%s: replay: got error %v, want an answer", where, err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != i.Code {
		body, _ := io.ReadAll(resp.Body)
		t.Errorf("%s: status: got %d, want %d as recorded (replayed body %s)", where, resp.StatusCode, i.Code, bytes.TrimSpace(body))
		return
	}
	switch {
	case i.Code < 200 || i.Code >= 300:
		st.errors++
		body, _ := io.ReadAll(resp.Body)
		compareStatus(t, where, body, i.Body)
	case !isResource:
		st.discovery++
		body, _ := io.ReadAll(resp.Body)
		compareDiscovery(t, where, u.Path, body, i.Body, h)
	case q.Watch:
		st.watches++
		l, _ := h.Log(q.Resource)
		st.frames += compareWatch(t, where, l, resp.Body, i.Body)
	case q.Name == "":
		st.lists++
		body, _ := io.ReadAll(resp.Body)
		compareList(t, where, body, i.Body)
	}
}

// statusOf reads a Status's code and reason.
func statusOf(body []byte) (code int, reason string, err error) {
	var s struct {
		Code   int    `json:"code"`
		Reason string `json:"reason"`
	}
	err = json.Unmarshal(body, &s)
	return s.Code, s.Reason, err
}

func compareStatus(t *testing.T, where string, got, want []byte) {
	gc, gr, gerr := statusOf(got)
	wc, wr, werr := statusOf(want)
	if gerr != nil || werr != nil {
		t.Errorf("%s: Status: got %v / %v decoding, want none", where, gerr, werr)
		return
	}
	if gc != wc || gr != wr {
		t.Errorf("%s: Status: got %d %s, want %d %s as recorded", where, gc, gr, wc, wr)
	}
}

// compareDiscovery compares a replayed discovery answer with the recorded
// one as the replayer serves it: what h can answer (servedDiscovery).
func compareDiscovery(t *testing.T, where, path string, got, want []byte, h *history.History) {
	g, gerr := jsonMap(got)
	w, werr := jsonMap(want)
	if gerr != nil || werr != nil {
		t.Errorf("%s: discovery: got %v / %v decoding, want none", where, gerr, werr)
		return
	}
	if path == "/version" { // built from the replayer's version option, not recorded
		if g["gitVersion"] != w["gitVersion"] {
			t.Errorf("%s: gitVersion: got %v, want %v", where, g["gitVersion"], w["gitVersion"])
		}
		return
	}
	if w = servedDiscovery(w, h); !reflect.DeepEqual(g, w) {
		wb, _ := json.Marshal(w)
		t.Errorf("%s: discovery answer:\ngot  %s\nwant %s (the recorded answer, what the history answers)", where, got, wb)
	}
}

type listDoc struct {
	Metadata struct {
		ResourceVersion    string `json:"resourceVersion"`
		Continue           string `json:"continue"`
		RemainingItemCount *int64 `json:"remainingItemCount"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

func compareList(t *testing.T, where string, got, want []byte) {
	var g, w listDoc
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("%s: replayed list: %v", where, err)
		return
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Errorf("%s: recorded list: %v", where, err)
		return
	}
	gm, wm := g.Metadata, w.Metadata
	if gm.ResourceVersion != wm.ResourceVersion {
		t.Errorf("%s: list resourceVersion: got %q, want %q", where, gm.ResourceVersion, wm.ResourceVersion)
	}
	if (gm.Continue != "") != (wm.Continue != "") {
		t.Errorf("%s: list continue: got %q, want presence %v", where, gm.Continue, wm.Continue != "")
	}
	if (gm.RemainingItemCount != nil) != (wm.RemainingItemCount != nil) {
		t.Errorf("%s: list remainingItemCount: got %v, want presence %v", where, gm.RemainingItemCount != nil, wm.RemainingItemCount != nil)
	}
	if len(g.Items) != len(w.Items) {
		t.Errorf("%s: list items: got %d, want %d", where, len(g.Items), len(w.Items))
		return
	}
	for k := range w.Items {
		gi, _ := jsonMap([]byte(g.Items[k]))
		wi, _ := jsonMap([]byte(w.Items[k]))
		if !reflect.DeepEqual(gi, wi) {
			t.Errorf("%s: list item %d:\ngot  %s\nwant %s", where, k, g.Items[k], w.Items[k])
		}
	}
}

// decodeFrames reads watch frames from r until want frames that are not
// periodic bookmarks have come, or r ends. Periodic bookmarks are
// returned apart; the caller checks them for shape.
func decodeFrames(r io.Reader, want int) (kept, periodic []frameView, err error) {
	dec := json.NewDecoder(r)
	for want < 0 || len(kept) < want {
		var wf wireFrame
		if err := dec.Decode(&wf); err != nil {
			if err == io.EOF {
				return kept, periodic, nil
			}
			return kept, periodic, err
		}
		f, err := viewFrame(wf)
		if err != nil {
			return kept, periodic, err
		}
		if f.periodic() {
			periodic = append(periodic, f)
			continue
		}
		kept = append(kept, f)
	}
	return kept, periodic, nil
}

// compareWatch compares a replayed watch stream with the recorded one and
// returns how many recorded frames it compared.
func compareWatch(t *testing.T, where string, l *history.Log, replayed io.Reader, recorded []byte) int {
	want, wantPeriodic, err := decodeFrames(bytes.NewReader(recorded), -1)
	if err != nil {
		t.Errorf("%s: recorded frames: %v", where, err)
		return 0
	}
	// A read that ends early (the bubble's clock passing watchReadLimit)
	// is no error here: the comparison below reports what is missing.
	got, gotPeriodic, _ := decodeFrames(replayed, len(want))
	kind, apiVersion := "", ""
	if l != nil {
		kind, apiVersion = l.Resource.Kind, l.Resource.GroupVersion()
	}
	for _, f := range append(append(append([]frameView(nil), wantPeriodic...), gotPeriodic...), bookmarks(want, got)...) {
		if why := bookmarkShape(f, kind, apiVersion); why != "" {
			t.Errorf("%s: bookmark %v: %s", where, f.obj, why)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: frames: got %d %v, want %d %v as recorded", where, len(got), got, len(want), want)
		return len(want)
	}
	// The initial events of a WatchList stream (the ADDEDs before the
	// initial-events-end bookmark) compare as a set.
	initial := 0
	for k, f := range want {
		if f.initialEnd {
			initial = k
			break
		}
	}
	sortInitial := func(fs []frameView) {
		sort.SliceStable(fs[:initial], func(a, b int) bool { return fs[a].key() < fs[b].key() })
	}
	sortInitial(want)
	sortInitial(got)
	for k := range want {
		g, w := got[k], want[k]
		switch {
		case g.typ != w.typ:
			t.Errorf("%s: frame %d: got %v, want %v", where, k, g, w)
		case w.typ == string(history.Bookmark):
			if g.initialEnd != w.initialEnd {
				t.Errorf("%s: frame %d: initial-events-end annotation: got %v, want %v", where, k, g.initialEnd, w.initialEnd)
			}
		case w.typ == string(history.Error):
			if g.obj["code"] != w.obj["code"] || g.obj["reason"] != w.obj["reason"] {
				t.Errorf("%s: frame %d: got %v, want %v", where, k, g, w)
			}
		case !reflect.DeepEqual(g.obj, w.obj):
			gj, _ := json.Marshal(g.obj)
			wj, _ := json.Marshal(w.obj)
			t.Errorf("%s: frame %d %s:\ngot  %s\nwant %s", where, k, w, gj, wj)
		}
	}
	return len(want)
}

// bookmarks returns the bookmarks among frame lists.
func bookmarks(lists ...[]frameView) []frameView {
	var out []frameView
	for _, fs := range lists {
		for _, f := range fs {
			if f.typ == string(history.Bookmark) {
				out = append(out, f)
			}
		}
	}
	return out
}

// checkSequenceAtLeast runs checkSequence as a subtest named after label,
// wanting at least watches watch streams and frames frames compared (a
// recorded scenario's changes).
func checkSequenceAtLeast(t *testing.T, label string, files []*cassette.File, h *history.History, watches, frames int) {
	t.Helper()
	t.Run(label+" - answers agree with the recorded ones - pass", func(t *testing.T) {
		st := checkSequence(t, files, h)
		if st.watches < watches || st.frames < frames {
			t.Errorf("compared: got %d watches and %d frames, want at least %d and %d (the scenario's changes)", st.watches, st.frames, watches, frames)
		}
	})
}
