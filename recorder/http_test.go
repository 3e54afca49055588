package recorder

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/internal/testutil"
	"github.com/lwreplay/lwreplay/replayer"
)

func TestRecordOverHTTP(t *testing.T) {
	t.Parallel()
	h := testutil.GeneratedHistory(t, 30, 120, 9, testutil.EscapedData)
	l := h.Logs[0]
	tests := []struct {
		name string
		gzip bool
	}{
		{name: "recorder over HTTP - replayer behind a server - LIST and watch recorded - pass"},
		{name: "recorder over HTTP - LIST answered gzipped - decoded bytes recorded - pass", gzip: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var handler http.Handler = replayer.New(h)
			if tt.gzip {
				handler = gzipLists(handler)
			}
			srv := httptest.NewServer(handler)
			defer srv.Close()
			dir := t.TempDir()
			rec, err := New(filepath.Join(dir, "rec.yaml"), WithFlushInterval(0))
			if err != nil {
				t.Fatalf("New: got error %v, want none", err)
			}
			client := &http.Client{Transport: rec.Wrap(&http.Transport{DisableCompression: !tt.gzip})}
			resp, err := client.Get(srv.URL + "/api/v1/configmaps?limit=500&resourceVersion=0")
			if err != nil {
				t.Fatalf("LIST: got error %v, want none", err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			resp, err = client.Get(srv.URL + "/api/v1/configmaps?watch=true&resourceVersion=" + l.StartRV)
			if err != nil {
				t.Fatalf("WATCH: got error %v, want none", err)
			}
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for n := 0; n < len(l.Events) && sc.Scan(); n++ {
			}
			resp.Body.Close()
			if err := rec.Close(); err != nil {
				t.Fatalf("Close: got error %v, want none", err)
			}
			_, got := loadDir(t, dir)
			sameLog(t, got.Logs[0], l)
		})
	}
}

func gzipLists(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "" || !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			h.ServeHTTP(w, r)
			return
		}
		rr := httptest.NewRecorder()
		h.ServeHTTP(rr, r)
		for k, v := range rr.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(rr.Code)
		zw := gzip.NewWriter(w)
		zw.Write(rr.Body.Bytes())
		zw.Close()
	})
}

func gzipped(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}
