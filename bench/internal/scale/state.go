package scale

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"

	"github.com/lwreplay/lwreplay/history"
)

// measureLoad loads the cassette and builds its history, as `lwreplay
// serve` does, and nothing else: the parent reads the child's peak RSS.
// It reports the objects and events of the history.
func measureLoad(job Job) (Figures, error) {
	h, err := loadHistory(job.Cassette)
	if err != nil {
		return nil, err
	}
	f := Figures{}
	for _, lg := range h.Logs {
		f["objects"] += float64(len(lg.Initial))
		f["events"] += float64(lg.End())
	}
	runtime.KeepAlive(h)
	return f, nil
}

// largestRV returns the resourceVersion at which lg's state is largest, in
// bytes of its objects' JSON as the wire carries them, with that size. It
// lists the state at the start, and follows the watch through every event.
func largestRV(ctx context.Context, rt http.RoundTripper, lg *history.Log) (string, int, error) {
	b, err := listAt(ctx, rt, lg, lg.StartRV)
	if err != nil {
		return "", 0, err
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return "", 0, fmt.Errorf("%w: LIST %s: %v", ErrMeasure, lg.Resource, err)
	}
	sizes := make(map[string]int, len(list.Items))
	total := 0
	for _, it := range list.Items {
		var f frame
		if err := json.Unmarshal(it, &f.Object); err != nil {
			return "", 0, fmt.Errorf("%w: LIST %s: %v", ErrMeasure, lg.Resource, err)
		}
		sizes[f.Object.Metadata.Namespace+"/"+f.Object.Metadata.Name] = len(it)
		total += len(it)
	}
	best, bestRV := total, lg.StartRV
	err = watchAll(ctx, rt, lg, nil, func(f *frame, size int) {
		key := f.Object.Metadata.Namespace + "/" + f.Object.Metadata.Name
		total -= sizes[key]
		if f.Type == "DELETED" {
			delete(sizes, key)
		} else {
			sizes[key] = size
			total += size
		}
		if total > best {
			best, bestRV = total, f.Object.Metadata.ResourceVersion
		}
	})
	return bestRV, best, err
}

// measureState finds, for each resource, the state whose objects' JSON is
// largest. It reports the heap that client-go's typed objects decoded
// from its LIST take, and their number ("objects"). The heap ("bytes") is
// the live heap after decoding all of them, less before, both after a GC.
// The largest states of different resources may lie at different points
// of the history: their sum bounds every single point's state from above.
func measureState(ctx context.Context, job Job) (Figures, error) {
	h, bodies, err := listEach(ctx, job, func(rt http.RoundTripper, lg *history.Log) (string, error) {
		if _, err := typedOf(lg.Resource); err != nil {
			return "", err
		}
		rv, _, err := largestRV(ctx, rt, lg)
		return rv, err
	})
	if err != nil {
		return nil, err
	}
	before := liveHeap()
	decoded := make([]any, 0, len(bodies))
	objects := 0
	for _, b := range bodies {
		l, n, err := decodeList(b)
		if err != nil {
			return nil, err
		}
		decoded = append(decoded, l)
		objects += n
	}
	after := liveHeap()
	runtime.KeepAlive(decoded)
	runtime.KeepAlive(bodies)
	runtime.KeepAlive(h)
	return Figures{"bytes": float64(after - before), "objects": float64(objects)}, nil
}

// liveHeap returns the bytes of heap objects in use after a full GC.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// listEach loads job's cassette, serves it in-process and returns, per
// resource, its LIST body at the resourceVersion rvOf picks.
func listEach(ctx context.Context, job Job, rvOf func(http.RoundTripper, *history.Log) (string, error)) (*history.History, [][]byte, error) {
	h, err := loadHistory(job.Cassette)
	if err != nil {
		return nil, nil, err
	}
	rt := newServer(h)
	var bodies [][]byte
	for _, lg := range h.Logs {
		rv, err := rvOf(rt, lg)
		if err != nil {
			return nil, nil, err
		}
		b, err := listAt(ctx, rt, lg, rv)
		if err != nil {
			return nil, nil, err
		}
		bodies = append(bodies, b)
	}
	return h, bodies, nil
}
