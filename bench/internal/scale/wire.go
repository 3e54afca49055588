package scale

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
)

// replayHost is the host in-process requests name.
const replayHost = "http://replay.invalid"

// loadHistory loads the cassette as one recording and builds its history,
// as `lwreplay serve` does (large bodies left in the file until built).
func loadHistory(path string) (*history.History, error) {
	recs, err := cassette.LoadRecordings([]string{path}, cassette.WithLazyBodies(true))
	if err != nil {
		return nil, err
	}
	if len(recs) != 1 {
		return nil, fmt.Errorf("%w: %s: got %d recordings, want 1", ErrMeasure, path, len(recs))
	}
	return history.Build(recs[0].Files...)
}

// get answers a GET of path?query from the in-process transport rt and
// returns the response body, still open.
func get(ctx context.Context, rt http.RoundTripper, path string, query url.Values) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, replayHost+path+"?"+query.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %v", ErrMeasure, path, err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s?%s: %v", ErrMeasure, path, query.Encode(), err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: GET %s?%s: got status %d, want 200", ErrMeasure, path, query.Encode(), resp.StatusCode)
	}
	return resp.Body, nil
}

// listAt returns the LIST body of lg's resource at rv, read exactly, in
// one page.
func listAt(ctx context.Context, rt http.RoundTripper, lg *history.Log, rv string) ([]byte, error) {
	body, err := get(ctx, rt, lg.Resource.CollectionPath(""), url.Values{"resourceVersion": {rv}, "resourceVersionMatch": {"Exact"}})
	if err != nil {
		return nil, err
	}
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, fmt.Errorf("%w: LIST %s at %s: %v", ErrMeasure, lg.Resource, rv, err)
	}
	return b, nil
}

// frame is one watch event as the wire carries it, its object's identity
// decoded.
type frame struct {
	Type   string `json:"type"`
	Object struct {
		Metadata struct {
			Namespace       string `json:"namespace"`
			Name            string `json:"name"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	} `json:"object"`
}

// watchAll streams a watch of lg's resource from its start through its
// last event, copying the bytes read to sink (nil: none). It calls each
// with every event but bookmarks, and the size of its JSON frame. It
// returns once lg.End() events have come.
func watchAll(ctx context.Context, rt http.RoundTripper, lg *history.Log, sink io.Writer, each func(f *frame, size int)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q := url.Values{"watch": {"true"}, "resourceVersion": {lg.StartRV}, "allowWatchBookmarks": {"true"}}
	body, err := get(ctx, rt, lg.Resource.CollectionPath(""), q)
	if err != nil {
		return err
	}
	defer body.Close()
	var r io.Reader = body
	if sink != nil {
		r = io.TeeReader(body, sink)
	}
	dec := json.NewDecoder(r)
	var raw json.RawMessage
	for n := 0; n < lg.End(); {
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%w: watch %s: after %d of %d events: %v", ErrMeasure, lg.Resource, n, lg.End(), err)
		}
		var f frame
		if err := json.Unmarshal(raw, &f); err != nil {
			return fmt.Errorf("%w: watch %s: event %d: %v", ErrMeasure, lg.Resource, n, err)
		}
		switch f.Type {
		case "BOOKMARK":
			continue
		case "ERROR":
			return fmt.Errorf("%w: watch %s: event %d is an ERROR: %s", ErrMeasure, lg.Resource, n, raw)
		}
		each(&f, len(raw))
		n++
	}
	return nil
}

// newServer returns an in-process replayer of h.
func newServer(h *history.History) http.RoundTripper { return replayer.New(h).Transport() }
