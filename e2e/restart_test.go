package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/internal/cluster"
)

// TestAPIServerRestart checks on a real kube-apiserver, restarted on the
// same etcd, what the replayer's apiserver-restart fault acts out. A watch
// open across the restart ends. A request while the server is down is
// refused at connect (ECONNREFUSED, what the fault's in-process refusal
// is). The restarted server's watch cache starts anew. So a watch from a
// resourceVersion older than the resource's newest state gets an ERROR
// event: 410 Expired, "too old resource version". A LIST at "0", and a
// watch from the list's resourceVersion, are served.
func TestAPIServerRestart(t *testing.T) {
	c := cluster.StartT(t)
	ctx := t.Context()
	cs, err := kubernetes.NewForConfig(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	const ns = "e2e-restart"
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	if err := ensureNamespaces(ctx, cs, ns); err != nil {
		t.Fatal(err)
	}
	w := &workload{cs: cs, ns: []string{ns}}
	if err := w.createConfigMap(ctx, ns, "a", map[string]string{"v": "1"}); err != nil {
		t.Fatal(err)
	}
	first, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first.Data["v"] = "2"
	second, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, first, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hc, err := rest.HTTPClientFor(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	raw := rawClient{hc: hc, base: c.URL}

	// a watch from the first version, open across the restart
	resp, err := raw.get(ctx, path, url.Values{"watch": {"true"}, "resourceVersion": {first.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	open := make(chan error, 1)
	go func() {
		defer resp.Body.Close()
		dec := json.NewDecoder(resp.Body)
		for {
			var f wireFrame
			if err := dec.Decode(&f); err != nil {
				open <- err
				return
			}
		}
	}()

	var downErr error
	err = c.RestartAPIServer(ctx, func() {
		_, downErr = raw.get(ctx, path, nil)
	})
	if err != nil {
		t.Fatalf("restart: got error %v, want a ready kube-apiserver", err)
	}
	select {
	case err := <-open:
		t.Logf("the open watch ended: %v", err)
	case <-time.After(waitLimit):
		t.Errorf("open watch: got still open %s after the restart, want ended", waitLimit)
	}
	if !errors.Is(downErr, syscall.ECONNREFUSED) {
		t.Errorf("LIST while down: got error %v, want ECONNREFUSED", downErr)
	}

	// the watch from the first version: the new watch cache starts after it
	// (it may first answer 429 "storage is (re)initializing")
	var frames []wireFrame
	waitFor(t, "a watch from the first version is answered", func() (bool, string) {
		code, fs, err := raw.watchUntil(ctx, path, url.Values{"watch": {"true"}, "resourceVersion": {first.ResourceVersion}},
			func(wireFrame) bool { return true })
		if err != nil || code != http.StatusOK || len(fs) == 0 {
			return false, "code " + http.StatusText(code) + ", " + errText(err)
		}
		frames = fs
		return true, ""
	})
	if len(frames) != 1 || frames[0].Type != "ERROR" {
		t.Fatalf("watch from rv %s after the restart: got %d frames (first %s), want one ERROR", first.ResourceVersion, len(frames), frameType(frames))
	}
	var st metav1.Status
	if err := json.Unmarshal(frames[0].Object, &st); err != nil {
		t.Fatal(err)
	}
	if st.Code != http.StatusGone || st.Reason != metav1.StatusReasonExpired || !strings.Contains(st.Message, "too old resource version") {
		t.Errorf("watch from rv %s after the restart: got %d %s %q, want 410 Expired, too old resource version", first.ResourceVersion, st.Code, st.Reason, st.Message)
	}

	// the watch from the resource's newest version: the model's watch
	// cache starts there and serves it. A real one starts at etcd's
	// revision, newer still once anything else was written, and may refuse
	// it too. Both are legal; the model is the gentler.
	_, fs, err := raw.watchUntil(ctx, path, url.Values{"watch": {"true"}, "resourceVersion": {second.ResourceVersion}, "timeoutSeconds": {"1"}},
		func(wireFrame) bool { return true })
	t.Logf("watch from the newest version, rv %s, after the restart: %d frames (first %s), error %s", second.ResourceVersion, len(fs), frameType(fs), errText(err))

	// a LIST at "0", and a watch from its resourceVersion, are served
	code, body, err := raw.getAll(ctx, path, url.Values{"resourceVersion": {"0"}})
	if err != nil || code != http.StatusOK {
		t.Fatalf("LIST at 0 after the restart: got %d, %v, want 200", code, err)
	}
	listRV := objectRV(body)
	code, fs, err = raw.watchUntil(ctx, path, url.Values{"watch": {"true"}, "resourceVersion": {listRV}, "timeoutSeconds": {"1"}},
		func(f wireFrame) bool { return f.Type == "ERROR" })
	if err != nil || code != http.StatusOK {
		t.Fatalf("watch from the list's rv %s: got %d, %v, want 200", listRV, code, err)
	}
	for _, f := range fs {
		if f.Type == "ERROR" {
			t.Errorf("watch from the list's rv %s: got ERROR %s, want a stream", listRV, bytes.TrimSpace(f.Object))
		}
	}
}

// errText is err's text, or "no error".
func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// frameType is the type of the first frame, or "none".
func frameType(fs []wireFrame) string {
	if len(fs) == 0 {
		return "none"
	}
	return fs[0].Type
}
