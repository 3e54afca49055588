// Package verbatim replays a reproducer cassette as it was recorded. Each
// request gets the recorded answer to the same request, in order, whatever
// it says. The command lwreplay mutate writes reproducers: the traffic a
// client was sent under a fault plan. Their traffic may break the watch
// contract on purpose. So it is replayed here rather than modelled as a
// history by the replayer's Server. Like the Server, a Replay is an
// http.Handler and has an in-process Transport. A reproducer of a writing
// target holds its writes too. Each is answered with its recorded answer,
// in order, when the target sends the recorded body (see Replay).
//
// Typical use:
//
//	files, err := cassette.LoadAll(paths...)
//	v, err := verbatim.New(files...)
//	cfg := &rest.Config{Host: "http://replay", Transport: v.Transport()}
//	// ... run the client, then:
//	done := v.Exhausted()
package verbatim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/inproc"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

// Replay answers requests with recorded interactions as they were
// recorded, in order, as a reproducer cassette asks (lwreplay mutate writes
// them). Its traffic may break the watch contract on purpose, so it is not
// modelled as a history.
//
// The n-th request with a given method, path and query gets the n-th
// recorded answer to such a request. The query's timeoutSeconds and
// timeout do not count: clients choose them at random (client-go's
// generated clients send both). A watch stream that the client had closed
// when it was recorded stays open after its frames. It stays silent until
// the request ends or its timeout. One the server ended, ends; one that
// broke, breaks. A request with no recorded answer left gets a 404 Status
// naming it.
//
// A write is answered so too, once its body is the recorded one. A write
// whose body differs gets a 400 naming the recorded interaction.
// Mismatches tells the writes not answered. A frame that echoes a
// recorded write is held back until the write is answered.
type Replay struct {
	mu         sync.Mutex
	queues     map[string][]recorded
	mismatches []error
	// The map echoes holds, by where each was recorded, the gate of the
	// frames that echo a recorded write. It is read only after New. The map
	// opens holds, by where each write was recorded, the gate its answer
	// opens.
	echoes, opens map[history.Location]chan struct{}
	// listings holds each resource's first complete listing's RV, by
	// Resource.ID (see FirstListing).
	listings map[history.Resource]string
}

// New returns a handler replaying files' interactions verbatim.
func New(files ...*cassette.File) (*Replay, error) {
	v := &Replay{queues: map[string][]recorded{}, echoes: map[history.Location]chan struct{}{}, opens: map[history.Location]chan struct{}{}}
	for _, f := range files {
		for n, i := range f.Interactions {
			u, err := url.Parse(i.URL)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: interaction %d: url: %v", cassette.ErrFormat, f.Path, n, err)
			}
			if i.Body, err = i.ReadBody(); err != nil { // a body left in the file
				return nil, fmt.Errorf("%s: interaction %d: %w", f.Path, n, err)
			}
			k := verbatimKey(i.Method, u)
			v.queues[k] = append(v.queues[k], recorded{it: i, loc: history.Location{File: f.Path, Interaction: n, Event: -1}})
		}
	}
	v.gateEchoes(files)
	return v, nil
}

// Transport returns an in-process RoundTripper for the handler, as the
// replayer's Server.Transport does. A request whose recorded stream broke
// fails its body read with an error wrapping the replayer's
// ErrHandlerPanic. Each request reaches the handler after inproc's default
// latency, as the Server's does by default (replayer.DefaultLatency). So
// a reproducer replays in the virtual time its recording run took.
func (v *Replay) Transport() http.RoundTripper { return inproc.New(v, inproc.DefaultLatency) }

// TransportWithLatency is Transport with each request reaching the
// handler after latency (0: at once), as replayer.WithLatency sets it.
func (v *Replay) TransportWithLatency(latency time.Duration) http.RoundTripper {
	return inproc.New(v, latency)
}

func verbatimKey(method string, u *url.URL) string {
	q := u.Query()
	q.Del("timeoutSeconds")
	q.Del("timeout")
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(strings.ToUpper(method) + " " + u.Path + "?")
	for _, k := range keys {
		b.WriteString(url.QueryEscape(k) + "=" + url.QueryEscape(strings.Join(q[k], ",")) + "&")
	}
	return b.String()
}

// ServeHTTP answers with the next recorded answer to the request.
func (v *Replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	k := verbatimKey(method, r.URL)
	sent, readErr := readSent(r)
	v.mu.Lock()
	q := v.queues[k]
	var it cassette.Interaction
	var at history.Location // where it was recorded
	ok := len(q) > 0
	var mismatch error
	if ok {
		var n int
		if n, mismatch = matching(method, r, q, sent, readErr); mismatch == nil {
			it, at = q[n].it, q[n].loc
			v.answered(at)
			v.queues[k] = slices.Delete(q, n, n+1)
		}
	}
	if mismatch == nil && !ok && method != http.MethodGet && method != http.MethodHead {
		mismatch = fmt.Errorf("%w: %s %s: the reproducer holds no write left to it", ErrMismatch, method, r.URL.RequestURI())
	}
	if mismatch != nil {
		v.mismatches = append(v.mismatches, mismatch)
	}
	v.mu.Unlock()
	switch {
	case ok && mismatch != nil:
		status.Write(w, apierrors.NewBadRequest("lwreplay: "+mismatch.Error()).ErrStatus)
		return
	case !ok:
		st := status.NotFound()
		st.Message = "lwreplay: the reproducer holds no answer left for " + method + " " + r.URL.RequestURI()
		status.Write(w, st)
		return
	}
	for name, vals := range it.Header {
		if name == "Content-Length" || name == "Transfer-Encoding" {
			continue
		}
		w.Header()[name] = vals
	}
	w.WriteHeader(it.Code)
	if it.FrameOffsets == nil && it.StreamEnd == "" {
		if _, err := w.Write(it.Body); err == nil {
			v.noteList(r.URL, it)
		}
		return
	}
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	timeout := 30 * time.Minute
	if s := r.URL.Query().Get("timeoutSeconds"); s != "" {
		var n int
		if _, err := fmt.Sscan(s, &n); err == nil && n > 0 {
			timeout = time.Duration(n) * time.Second
		}
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	event := 0 // the frame's index, as history counts them: blank lines aside
	for _, frame := range bytes.SplitAfter(it.Body, []byte("\n")) {
		if len(frame) == 0 {
			continue
		}
		if len(bytes.TrimSpace(frame)) > 0 {
			at.Event, event = event, event+1
			if !v.awaitWrite(r, t, at) {
				return // the request ended, or its timeout passed, before the write came
			}
		}
		if _, err := w.Write(frame); err != nil {
			return
		}
		v.noteFrame(r.URL, frame)
		if flusher != nil {
			flusher.Flush()
		}
	}
	switch it.StreamEnd {
	case cassette.EndEOF:
		return
	case cassette.EndError:
		panic(http.ErrAbortHandler) // the stream broke: so does the replay
	}
	select {
	case <-r.Context().Done():
	case <-t.C:
	}
}

// Exhausted reports whether every recorded answer has been given.
func (v *Replay) Exhausted() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, q := range v.queues {
		if len(q) > 0 {
			return false
		}
	}
	return true
}

// FirstListing returns the resourceVersion of the first complete listing
// of res the reproducer has served (see the replayer's
// Server.FirstListing). That is a 200 LIST answer without a continue
// token, or a watch frame that is an initial-events-end BOOKMARK.
func (v *Replay) FirstListing(res history.Resource) (rv string, ok bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	rv, ok = v.listings[res.ID()]
	return rv, ok
}

// noteList notes a LIST answer it served, if it is a last page.
func (v *Replay) noteList(u *url.URL, it cassette.Interaction) {
	q, ok, err := history.ParseRequestInfo(u)
	if !ok || err != nil || q.Watch || q.Name != "" || it.Code != http.StatusOK {
		return
	}
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
			Continue        string `json:"continue"`
		} `json:"metadata"`
	}
	if json.Unmarshal(it.Body, &list) != nil || list.Metadata.Continue != "" {
		return
	}
	v.listed(q.Resource, list.Metadata.ResourceVersion)
}

// noteFrame notes a watch frame it served, if it ends initial events.
func (v *Replay) noteFrame(u *url.URL, frame []byte) {
	if !bytes.Contains(frame, []byte(metav1.InitialEventsAnnotationKey)) {
		return
	}
	q, ok, err := history.ParseRequestInfo(u)
	if !ok || err != nil {
		return
	}
	var ev struct {
		Type   string `json:"type"`
		Object struct {
			Metadata struct {
				ResourceVersion string            `json:"resourceVersion"`
				Annotations     map[string]string `json:"annotations"`
			} `json:"metadata"`
		} `json:"object"`
	}
	if json.Unmarshal(frame, &ev) != nil || ev.Type != "BOOKMARK" || ev.Object.Metadata.Annotations[metav1.InitialEventsAnnotationKey] != "true" {
		return
	}
	v.listed(q.Resource, ev.Object.Metadata.ResourceVersion)
}

// listed notes a complete listing of res at rv; the first one stays.
func (v *Replay) listed(res history.Resource, rv string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.listings == nil {
		v.listings = map[history.Resource]string{}
	}
	if _, ok := v.listings[res.ID()]; !ok {
		v.listings[res.ID()] = rv
	}
}
