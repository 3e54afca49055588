package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/cluster"
	"github.com/lwreplay/lwreplay/recorder"
)

// compactionInterval is the expiry cluster's --etcd-compaction-interval:
// every interval kube-apiserver compacts etcd at the revision it saw one
// interval before (kube-apiserver sets no minimum).
const compactionInterval = time.Second

// What kube-apiserver answers for a compacted revision when etcd serves
// the request (k8s.io/apiserver pkg/storage/etcd3/errors.go).
const (
	etcdWatchExpired = "The resourceVersion for the provided watch is too old."
	etcdListExpired  = "The resourceVersion for the provided list is too old."
)

// errorsText renders recorded errors for messages.
func errorsText(errs []history.RecordedError) string {
	var parts []string
	for _, e := range errs {
		parts = append(parts, fmt.Sprintf("%s: %d %s %q", e.From, e.Code, e.Reason, e.Message))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// rawClient sends GETs with a JSON Accept header through an HTTP client.
type rawClient struct {
	hc   *http.Client
	base string
}

func (c rawClient) get(ctx context.Context, path string, q url.Values) (*http.Response, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	return c.hc.Do(req)
}

// getAll sends a GET and reads the whole answer.
func (c rawClient) getAll(ctx context.Context, path string, q url.Values) (int, []byte, error) {
	resp, err := c.get(ctx, path, q)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// watchUntil opens a watch and reads frames until stop says so or the
// stream ends; it closes the stream and returns the frames read.
func (c rawClient) watchUntil(ctx context.Context, path string, q url.Values, stop func(wireFrame) bool) (int, []wireFrame, error) {
	ctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	resp, err := c.get(ctx, path, q)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var frames []wireFrame
	dec := json.NewDecoder(resp.Body)
	for {
		var f wireFrame
		if err := dec.Decode(&f); err != nil {
			if err == io.EOF {
				err = nil
			}
			return resp.StatusCode, frames, err
		}
		frames = append(frames, f)
		if stop(f) {
			return resp.StatusCode, frames, nil
		}
	}
}

func objectRV(raw []byte) string {
	var m struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	json.Unmarshal(raw, &m)
	return m.Metadata.ResourceVersion
}

// TestRecordExpired records real 410 answers. A cluster compacts etcd
// every second, and takes writes whose revisions get compacted. Then the
// recorder transport records a LIST (the history's start), and an exact
// LIST at a compacted resourceVersion (HTTP 410). It records a watch from
// resourceVersion 1 (an ERROR event, 410 Expired). It records a watch from
// the LIST's resourceVersion that sees the writes made after it.
//
// The cluster runs without the watch cache (--watch-cache=false), so
// watches are served by etcd and a compacted revision expires them. With
// the watch cache on, a young cluster serves a watch from resourceVersion
// 1 from memory. The cache keeps every event since it started, until its
// buffer fills with events older than 75 s. No short test reaches that.
func TestRecordExpired(t *testing.T) {
	c := cluster.StartT(t, cluster.WithCompactionInterval(compactionInterval), cluster.WithExtraFlags("--watch-cache=false"))
	ctx := t.Context()
	cs, err := kubernetes.NewForConfig(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	const ns = "e2e-expire"
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	w := &workload{cs: cs, ns: []string{ns}}
	if err := ensureNamespaces(ctx, cs, ns); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := w.createConfigMap(ctx, ns, fmt.Sprintf("cm-%02d", i), map[string]string{"i": fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	oldRV := w.lastRV
	for round := range 3 {
		for i := range 10 {
			if err := w.updateConfigMap(ctx, ns, fmt.Sprintf("cm-%02d", i), func(cm *corev1.ConfigMap) {
				cm.Data["round"] = fmt.Sprint(round)
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	plainHC, err := rest.HTTPClientFor(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	plain := rawClient{hc: plainHC, base: c.URL}
	exact := url.Values{"resourceVersion": {oldRV}, "resourceVersionMatch": {"Exact"}}
	waitFor(t, "etcd compacted past resourceVersion "+oldRV, func() (bool, string) {
		code, body, err := plain.getAll(ctx, path, exact)
		if err != nil {
			return false, err.Error()
		}
		return code == http.StatusGone, fmt.Sprintf("exact LIST at %s: %d %s", oldRV, code, bytes.TrimSpace(body))
	})

	out := filepath.Join(t.TempDir(), "expired.yaml")
	rec, err := recorder.New(out, recorder.WithFlushInterval(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.RestConfig()
	cfg.Wrap(rec.Wrap)
	recHC, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	recorded := rawClient{hc: recHC, base: c.URL}

	code, body, err := recorded.getAll(ctx, path, nil)
	if err != nil || code != http.StatusOK {
		t.Fatalf("LIST: got %d %v, want 200", code, err)
	}
	startRV := objectRV(body)
	// The watch from the LIST's resourceVersion opens at once, before the
	// compaction (a second behind) can pass it, and reads the writes below.
	const liveEvents = 7
	type watchResult struct {
		code   int
		frames []wireFrame
		err    error
	}
	liveDone := make(chan watchResult, 1)
	go func() {
		n := 0
		code, frames, err := recorded.watchUntil(ctx, path, url.Values{"watch": {"true"}, "resourceVersion": {startRV}},
			func(wireFrame) bool { n++; return n == liveEvents })
		liveDone <- watchResult{code, frames, err}
	}()
	code, body, err = recorded.getAll(ctx, path, exact)
	if err != nil || code != http.StatusGone {
		t.Fatalf("exact LIST at compacted %s: got %d %v %s, want 410", oldRV, code, err, body)
	}
	code, tooOld, err := recorded.watchUntil(ctx, path, url.Values{"watch": {"true"}, "resourceVersion": {"1"}}, func(wireFrame) bool { return false })
	if err != nil {
		t.Fatalf("watch from 1: got error %v, want none", err)
	}
	t.Logf("watch from resourceVersion 1: HTTP %d, %d frames: %s", code, len(tooOld), framesText(tooOld))

	// Writes after the recorded LIST, seen by the watch from its RV.
	for i := range 3 {
		if err := w.updateConfigMap(ctx, ns, fmt.Sprintf("cm-%02d", i), func(cm *corev1.ConfigMap) { cm.Data["after"] = "yes" }); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []func() error{
		func() error { return w.deleteConfigMap(ctx, ns, "cm-08") },
		func() error { return w.createConfigMap(ctx, ns, "late", map[string]string{"k": "v"}) },
		func() error { return w.deleteConfigMap(ctx, ns, "cm-09") },
		func() error { return w.createConfigMap(ctx, ns, "cm-09", map[string]string{"life": "2"}) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	lastRV := w.lastRV
	live := <-liveDone
	if live.err != nil || live.code != http.StatusOK || len(live.frames) != liveEvents || objectRV(live.frames[liveEvents-1].Object) != lastRV {
		t.Fatalf("watch from %s: got %d %v, frames %s, want 200 and %d frames up to %s", startRV, live.code, live.err, framesText(live.frames), liveEvents, lastRV)
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("recorder close: got error %v, want none", err)
	}

	dyn, err := dynamic.NewForConfig(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := realStates(t, dyn, ns, "configmaps")["configmaps"]
	files, h, err := loadHistory(out)
	if err != nil {
		t.Fatalf("load %s: got error %v, want none", out, err)
	}
	l, ok := logOf(h, "configmaps")
	if !ok {
		t.Fatalf("configmaps: got no log, want one")
	}
	t.Run("record expired - watch from resourceVersion 1 - ERROR 410 Expired recorded - pass", func(t *testing.T) {
		var found []history.RecordedError
		for _, e := range l.Errors {
			if e.From.Event >= 0 {
				found = append(found, e)
			}
		}
		if len(found) != 1 || found[0].Code != http.StatusGone || found[0].Reason != "Expired" || found[0].Message != etcdWatchExpired {
			t.Errorf("watch ERROR events: got %s, want one: 410 Expired %q", errorsText(found), etcdWatchExpired)
		}
		if len(tooOld) != 1 || tooOld[0].Type != "ERROR" || code != http.StatusOK {
			t.Errorf("wire: got %s, want HTTP 200 and one ERROR frame", framesText(tooOld))
		}
	})
	t.Run("record expired - exact LIST at a compacted resourceVersion - HTTP 410 Expired recorded - pass", func(t *testing.T) {
		var found []history.RecordedError
		for _, e := range l.Errors {
			if e.From.Event < 0 {
				found = append(found, e)
			}
		}
		if len(found) != 1 || found[0].Code != http.StatusGone || found[0].Reason != "Expired" || found[0].Message != etcdListExpired {
			t.Errorf("LIST errors: got %s, want one: HTTP 410 Expired %q", errorsText(found), etcdListExpired)
		}
	})
	t.Run("record expired - history ends at the real final state - pass", func(t *testing.T) {
		got, err := historyState(l)
		if err != nil {
			t.Fatal(err)
		}
		compareStates(t, "history final state", got, want)
		if l.StartRV != startRV {
			t.Errorf("history start: got %s, want the LIST's %s", l.StartRV, startRV)
		}
	})
	checkReplays(t, h, map[string]map[string]map[string]any{"configmaps": want})
	t.Run("replay sequence - expired - answers agree with the recorded ones - pass", func(t *testing.T) {
		st := checkSequence(t, files, h)
		t.Logf("compared %d lists, %d watches (%d frames), %d errors", st.lists, st.watches, st.frames, st.errors)
		if st.lists != 1 || st.errors != 1 || st.watches != 2 {
			t.Errorf("compared: got %d lists, %d error answers, %d watches, want 1, 1, 2", st.lists, st.errors, st.watches)
		}
	})
	t.Run("record expired - no credentials written - pass", func(t *testing.T) {
		if n := assertNoSecrets(t, c.Token, filepath.Dir(out)); n == 0 {
			t.Errorf("files scanned: got 0, want the recording")
		}
	})
	t.Run("record expired - cassette small enough to ship - pass", func(t *testing.T) {
		shipCassette(t, out, "real-configmaps-expired.yaml")
	})
}

// framesText renders frames as "TYPE rv" for messages.
func framesText(fs []wireFrame) string {
	var b strings.Builder
	for k, f := range fs {
		if k > 0 {
			b.WriteString(", ")
		}
		if f.Type == "ERROR" {
			b.WriteString("ERROR " + strings.TrimSpace(string(f.Object)))
			continue
		}
		b.WriteString(f.Type + " " + objectRV(f.Object))
	}
	return "[" + b.String() + "]"
}
