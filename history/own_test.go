package history_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

const ownFixture = "testdata/own-writes.yaml"

// writesText renders writes one a line: verb, key, code, RV, echo RV and
// where the echo was recorded.
func writesText(ws []history.Write) string {
	var lines []string
	for _, w := range ws {
		line := fmt.Sprintf("%s %s %s %d rv=%s uid=%s echo=%s", w.Verb, w.Resource.Resource, w.Key, w.Code, w.RV, w.UID, w.EchoRV)
		if w.EchoRV != "" {
			line += " @" + w.Echo.String()
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// prevs renders events with what each changed from: "MODIFIED ns/p@13<12".
func prevs(es []history.Event) string {
	var parts []string
	for _, e := range es {
		p := "-"
		if e.Prev != nil {
			p = e.Prev.ResourceVersion
		}
		parts = append(parts, fmt.Sprintf("%s %s@%s<%s", e.Type, e.Object.Key(), e.RV(), p))
	}
	return strings.Join(parts, "; ")
}

func TestWritesOfRecording(t *testing.T) {
	h, err := loadAndBuild(ownFixture)
	if err != nil {
		t.Fatalf("build %s: got error %v, want none", ownFixture, err)
	}
	l := h.Logs[0]
	const echoes = ownFixture + ": interaction 1: event "
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"own writes - recorded writes - listed in order with their echoes - pass", writesText(h.Writes), strings.Join([]string{
			"create configmaps ns/p-child 201 rv=11 uid=uid-p-child echo=11 @" + echoes + "0",
			"update configmaps ns/p 200 rv=12 uid=uid-p echo=12 @" + echoes + "1",
			"update configmaps ns/p 409 rv= uid= echo=",
			"update configmaps ns/p 200 rv=13 uid=uid-p echo=",
			"delete configmaps ns/p-child 200 rv= uid=uid-p-child echo=15 @" + echoes + "4",
			"create configmaps ns/dry 201 rv= uid=uid-dry echo=",
		}, "\n")},
		{"own writes - the log as Build makes it - every event served, the echoes too - pass", prevs(l.Events),
			"ADDED ns/p-child@11<-; MODIFIED ns/p@12<5; MODIFIED ns/p@13<12; MODIFIED ns/p-child@14<11; DELETED ns/p-child@15<14"},
		{"own writes - the log as Build makes it - nothing own left out - pass", fmt.Sprint(len(l.Own)), "0"},
		{"own writes - a refused write - its Status kept - pass", fmt.Sprintf("%d %s", h.Writes[2].Error.Code, h.Writes[2].Error.Reason), "409 Conflict"},
		{"own writes - a dry run - not stored - pass", fmt.Sprint(h.Writes[5].DryRun, h.Writes[5].Stored()), "true false"},
		{"own writes - request details - user agent, field manager, content type, time - pass",
			fmt.Sprintf("%s|%s|%s|%v", h.Writes[0].UserAgent, h.Writes[0].FieldManager, h.Writes[0].ContentType, h.Writes[0].At), "children/v0.0.0|children|application/json|2s"},
		{"own writes - the resource - the log's kind and scope - pass", fmt.Sprint(h.Writes[0].Resource.Kind, " ", h.Writes[0].Resource.Namespaced), "ConfigMap true"},
		{"own writes - a write told - one line - pass", h.Writes[0].String(), "create configmaps ns/p-child: 201 at 11, echoed (" + ownFixture + ": interaction 2)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", tc.got, tc.want)
			}
		})
	}
}

func TestWithoutOwn(t *testing.T) {
	h, err := loadAndBuild(ownFixture)
	if err != nil {
		t.Fatalf("build %s: got error %v, want none", ownFixture, err)
	}
	tests := []struct {
		name      string
		own       func(history.Write) bool
		wantEv    string // the served events, with what each changed from
		wantOwn   string // the events left out, likewise
		wantFinal string
	}{
		{name: "without own - every write the client's - echoes out, others' changes from them - pass",
			wantEv:    "MODIFIED ns/p@13<12; MODIFIED ns/p-child@14<11",
			wantOwn:   "ADDED ns/p-child@11<-; MODIFIED ns/p@12<5; DELETED ns/p-child@15<14",
			wantFinal: "ns/p@13 ns/p-child@14"},
		{name: "without own - creates only - the create's echo out - pass",
			own:       func(w history.Write) bool { return w.Verb == "create" },
			wantEv:    "MODIFIED ns/p@12<5; MODIFIED ns/p@13<12; MODIFIED ns/p-child@14<11; DELETED ns/p-child@15<14",
			wantOwn:   "ADDED ns/p-child@11<-",
			wantFinal: "ns/p@13"},
		{name: "without own - another client's writes - nothing out - pass",
			own:       func(w history.Write) bool { return w.UserAgent == "kubectl" },
			wantEv:    "ADDED ns/p-child@11<-; MODIFIED ns/p@12<5; MODIFIED ns/p@13<12; MODIFIED ns/p-child@14<11; DELETED ns/p-child@15<14",
			wantFinal: "ns/p@13"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := history.WithoutOwn(h, tc.own)
			if err != nil {
				t.Fatalf("WithoutOwn: got error %v, want none", err)
			}
			l := got.Logs[0]
			if s := prevs(l.Events); s != tc.wantEv {
				t.Errorf("events: got %s, want %s", s, tc.wantEv)
			}
			if s := prevs(l.Own); s != tc.wantOwn {
				t.Errorf("own: got %s, want %s", s, tc.wantOwn)
			}
			if s := objs(l.StateAt(l.End())); s != tc.wantFinal {
				t.Errorf("final state: got %s, want %s", s, tc.wantFinal)
			}
			if len(got.Writes) != len(h.Writes) || len(h.Logs[0].Own) != 0 {
				t.Errorf("writes: got %d, want %d; the history given: got %d own events, want it unchanged (0)", len(got.Writes), len(h.Writes), len(h.Logs[0].Own))
			}
		})
	}
}

func TestWithoutOwnRewritten(t *testing.T) {
	h, err := loadAndBuild(ownFixture)
	if err != nil {
		t.Fatalf("build %s: got error %v, want none", ownFixture, err)
	}
	others, err := history.WithoutOwn(h, nil)
	if err != nil {
		t.Fatalf("WithoutOwn: got error %v, want none", err)
	}
	plus100 := func(rv string) string {
		var n int
		fmt.Sscan(rv, &n)
		return fmt.Sprint(n + 100)
	}
	moved, err := history.RewriteRVs(others, plus100)
	if err != nil {
		t.Fatalf("RewriteRVs: got error %v, want none", err)
	}
	// the changed history lost an echo: what WithoutOwn cannot find
	noEcho, err := history.ReplaceEvents(h, h.Logs[0].Resource, h.Logs[0].Events[1:])
	if err != nil {
		t.Fatalf("ReplaceEvents: got error %v, want none", err)
	}
	_, lostErr := history.WithoutOwn(noEcho, nil)
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"without own - RVs rewritten - own events follow, Prev kept - pass", prevs(moved.Logs[0].Own),
			"ADDED ns/p-child@111<-; MODIFIED ns/p@112<105; DELETED ns/p-child@115<114"},
		{"without own - RVs rewritten - others' changes from the own ones - pass", prevs(moved.Logs[0].Events),
			"MODIFIED ns/p@113<112; MODIFIED ns/p-child@114<111"},
		{"without own - RVs rewritten - the writes as recorded - pass", fmt.Sprint(len(moved.Writes), " ", moved.Writes[0].RV), "6 11"},
		{"without own - an echo gone from the log - an error - fail", fmt.Sprint(errors.Is(lostErr, history.ErrRewrite), " ", lostErr != nil && strings.Contains(lostErr.Error(), "1 of the 3 echoes")), "true true"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
}

// write returns an interaction of a write: method, path, answer code and
// body, sent sec seconds into the recording.
func write(method, path string, code int, body string, sec int) cassette.Interaction {
	return at(cassette.Interaction{Method: method, URL: host + path, Code: code, Body: []byte(body)}, sec)
}

func TestWritesEchoes(t *testing.T) {
	const cms = "/api/v1/namespaces/ns/configmaps"
	start := at(list("limit=500&resourceVersion=0", "10", "", cm("a", "5")), 0)
	stream := func(frames ...string) cassette.Interaction {
		w := at(watch("resourceVersion=10", frames...), 1)
		w.FrameOffsets = nil // no timing: every frame at the stream's start
		return w
	}
	tests := []struct {
		name string
		ints []cassette.Interaction
		want string // writesText of the writes
	}{
		{name: "echoes - a delete, the key recreated, deleted again - each delete its own DELETED - pass",
			ints: []cassette.Interaction{start,
				stream(ev("DELETED", cmUID("a", "11", "u1")), ev("ADDED", cmUID("a", "12", "u2")), ev("DELETED", cmUID("a", "13", "u2"))),
				write("DELETE", cms+"/a", 200, `{"kind":"Status","status":"Success","details":{"name":"a","uid":"u1"}}`, 2),
				write("DELETE", cms+"/a", 200, `{"kind":"Status","status":"Success","details":{"name":"a","uid":"u2"}}`, 3)},
			want: "delete configmaps ns/a 200 rv= uid=u1 echo=11 @t.yaml: interaction 1: event 0\n" +
				"delete configmaps ns/a 200 rv= uid=u2 echo=13 @t.yaml: interaction 1: event 2"},
		{name: "echoes - an update whose answer is not JSON - listed, no echo - pass",
			ints: []cassette.Interaction{start, stream(ev("MODIFIED", cm("a", "11"))),
				write("PUT", cms+"/a", 200, "\x6b\x38\x73\x00protobuf", 2)},
			want: "update configmaps ns/a 200 rv= uid= echo="},
		{name: "echoes - a write to a resource not listed - listed as requested, no echo - pass",
			ints: []cassette.Interaction{start, stream(ev("MODIFIED", cm("a", "11"))),
				write("POST", "/api/v1/namespaces/ns/secrets", 201, `{"kind":"Secret","metadata":{"name":"s","namespace":"ns","resourceVersion":"11"}}`, 2)},
			want: "create secrets ns/s 201 rv=11 uid= echo="},
		{name: "echoes - two updates answered at one RV - the first claims it - pass",
			ints: []cassette.Interaction{start, stream(ev("MODIFIED", cm("a", "11"))),
				write("PUT", cms+"/a", 200, cm("a", "11"), 2), write("PUT", cms+"/a", 200, cm("a", "11"), 3)},
			want: "update configmaps ns/a 200 rv=11 uid=uid-a echo=11 @t.yaml: interaction 1: event 0\n" +
				"update configmaps ns/a 200 rv=11 uid=uid-a echo="},
		{name: "echoes - a deletecollection and a subresource write - verbs and key - pass",
			ints: []cassette.Interaction{start, stream(ev("MODIFIED", cm("a", "11"))),
				write("DELETE", cms+"?labelSelector=x", 200, `{"kind":"ConfigMapList","metadata":{"resourceVersion":"12"},"items":[]}`, 2),
				write("PATCH", "/api/v1/namespaces/ns/pods/p/status", 200, `{"kind":"Pod","metadata":{"name":"p","namespace":"ns","resourceVersion":"3"}}`, 3)},
			want: "deletecollection configmaps  200 rv= uid= echo=\npatch pods ns/p 200 rv=3 uid= echo="},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := history.Build(file("t.yaml", tc.ints...))
			if err != nil {
				t.Fatalf("Build: got error %v, want none", err)
			}
			if got := writesText(h.Writes); got != tc.want {
				t.Errorf("writes: got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestWritesBadInput(t *testing.T) {
	tests := []struct {
		name string
		it   cassette.Interaction
		want string
	}{
		{name: "bad write - a URL that does not parse - ErrFormat naming it - fail",
			it: cassette.Interaction{Method: "POST", URL: host + "/api/v1/namespaces/ns/configmaps?limit=-1", Code: 201}, want: "t.yaml: interaction 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := history.Build(file("t.yaml", list("limit=500", "10", ""), tc.it))
			if !errors.Is(err, cassette.ErrFormat) || !strings.Contains(fmt.Sprint(err), tc.want) {
				t.Errorf("Build: got error %v, want one wrapping %v naming %q", err, cassette.ErrFormat, tc.want)
			}
		})
	}
}
