package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lwreplay/lwreplay/cassette"
)

// ErrContradiction is wrapped by errors about a cassette whose traffic
// contradicts itself. Examples: an RV going backwards in a stream, a
// MODIFIED of an unknown key, a broken continue chain.
var ErrContradiction = errors.New("contradictory history")

type recordKind int

const (
	recOther recordKind = iota
	recList
	recWatch
	recDiscovery
	recError
	recTable
	recWrite
)

// record is one interaction, parsed.
type record struct {
	build   *buildState
	loc     Location
	kind    recordKind
	req     RequestInfo
	view    string
	started time.Duration // since history start; -1 unknown
	// list page
	listRV, next string
	items        []*Object
	kindName     string // object kind learned from the answer
	apiVersion   string
	remaining    bool
	// watch
	frames []frame
	// error answer or discovery
	err  *RecordedError
	path string
	body []byte
	// a LIST answer in Table form
	table RecordedTable
	// a write (a request other than GET)
	write *Write
}

// appearance returns the resourceVersions r shows, in the order the
// recording proves. A list's items come before its RV, a watch's RV
// before its frames, the frames in stream order.
func (r *record) appearance() []string {
	var out []string
	for _, o := range r.items {
		out = append(out, o.ResourceVersion)
	}
	if r.listRV != "" {
		out = append(out, r.listRV)
	}
	if rv := r.req.ResourceVersion; r.kind == recWatch && !r.req.IsWatchList() && rv != "" && rv != "0" {
		out = append(out, rv)
	}
	for _, f := range r.frames {
		if f.rv != "" {
			out = append(out, f.rv)
		}
	}
	return out
}

type frame struct {
	typ        EventType
	obj        *Object // nil for bookmarks and errors
	rv         string
	initialEnd bool
	err        *RecordedError
	at         time.Duration
	event      int // its index in the stream
}

// where returns where frame f of r was recorded.
func (r *record) where(f frame) Location {
	loc := r.loc
	loc.Event = f.event
	return loc
}

type listMeta struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		ResourceVersion    string `json:"resourceVersion"`
		Continue           string `json:"continue"`
		RemainingItemCount *int64 `json:"remainingItemCount"`
	} `json:"metadata"`
	Items []jsontext.Value `json:"items"`
}

type statusBody struct {
	Kind    string `json:"kind"`
	Code    int    `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func parseStatus(loc Location, code int, body []byte) *RecordedError {
	e := &RecordedError{From: loc, Code: code, Body: body}
	var s statusBody
	if json.Unmarshal(body, &s) == nil {
		e.Reason, e.Message = s.Reason, s.Message
		if s.Code != 0 {
			e.Code = s.Code
		}
	}
	return e
}

// parseInteraction classifies and decodes one interaction.
func parseInteraction(bs *buildState, loc Location, i cassette.Interaction, start time.Time) (*record, error) {
	r := &record{build: bs, loc: loc, started: -1}
	if !i.Started.IsZero() && !start.IsZero() {
		r.started = i.Started.Sub(start)
	}
	u, err := url.Parse(i.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: url: %v", cassette.ErrFormat, loc, err)
	}
	q, isResource, err := ParseRequestInfo(u)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", cassette.ErrFormat, loc, err)
	}
	if i.Method != "" && i.Method != "GET" {
		return parseWrite(r, i, u.Query(), q, isResource) // not list/watch history: History.Writes
	}
	if !isResource {
		if i.Body, err = readBody(loc, &i); err != nil {
			return nil, err
		}
		if i.Code == 200 && isDiscoveryPath(u.Path) {
			r.kind, r.path, r.body = recDiscovery, u.Path, i.Body
		} else if i.Code >= 300 {
			r.kind, r.err = recError, parseStatus(loc, i.Code, i.Body)
		}
		return r, nil
	}
	r.req = q
	r.view = q.Namespace + "|" + q.LabelSelector + "|" + q.FieldSelector
	if i.Code < 200 || i.Code >= 300 {
		body, err := readBody(loc, &i)
		if err != nil {
			return nil, err
		}
		r.kind, r.err = recError, parseStatus(loc, i.Code, body)
		return r, nil
	}
	if q.Name != "" {
		return r, nil // a single-object GET
	}
	if q.Watch && i.BodyInFile() {
		// A large stream left in its file: read as it is parsed.
		first, err := firstLine(loc, &i)
		if err != nil {
			return nil, err
		}
		probe := i
		probe.Body = first
		if tableAnswer(probe, true) {
			return r, nil // a watch of Tables is left out
		}
		r.kind = recWatch
		return r, parseFrames(r, i)
	}
	if i.Body, err = readBody(loc, &i); err != nil {
		return nil, err
	}
	if tableAnswer(i, q.Watch) {
		// Printed on the server's side: rows, not objects. A LIST answer
		// is kept to be served again; a watch of Tables is left out.
		if t, ok := recordedTable(loc, q, u.Query().Get("includeObject"), i.Body); ok && !q.Watch {
			r.kind, r.table = recTable, t
		}
		return r, nil
	}
	if q.Watch {
		r.kind = recWatch
		return r, parseFrames(r, i)
	}
	r.kind = recList
	var lm listMeta
	if err := decodeJSON(i.Body, &lm); err != nil {
		return nil, fmt.Errorf("%w: %s: list body: %v", cassette.ErrFormat, loc, err)
	}
	r.listRV, r.next, r.remaining = lm.Metadata.ResourceVersion, lm.Metadata.Continue, lm.Metadata.RemainingItemCount != nil
	r.kindName, r.apiVersion = strings.TrimSuffix(lm.Kind, "List"), lm.APIVersion
	if r.listRV == "" {
		return nil, fmt.Errorf("%w: %s: list has no metadata.resourceVersion", cassette.ErrFormat, loc)
	}
	for k, raw := range lm.Items {
		o, _, _, err := ParseObject(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: item %d: %v", cassette.ErrFormat, loc, k, err)
		}
		r.items = append(r.items, o)
	}
	r.build.keep(r.items...)
	return r, nil
}

func isDiscoveryPath(p string) bool {
	return p == "/version" || p == "/api" || p == "/apis" || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/apis/")
}

// readBody returns i's body, reading it from its file when it was left
// there.
func readBody(loc Location, i *cassette.Interaction) ([]byte, error) {
	b, err := i.ReadBody()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loc, err)
	}
	return b, nil
}

// firstLine returns the first line of i's body.
func firstLine(loc Location, i *cassette.Interaction) ([]byte, error) {
	rc, err := i.OpenBody()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", loc, err)
	}
	defer rc.Close()
	line, err := bufio.NewReader(rc).ReadBytes('\n')
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%w: %s: %v", cassette.ErrFormat, loc, err)
	}
	return line, nil
}

// buildState is what a build shares between the interactions it parses.
type buildState struct {
	blobs   blobStore
	intern  interner
	pending chan struct{} // closed when the last keepAsync is done
	// free holds batch buffers no object points into any more; their JSON
	// is in the blob store's file. parseLines reads its next batches into
	// them rather than into new ones.
	free chan []byte
}

// keep takes objects as they are read: their common metadata shared
// (interner), their JSON moved out of the heap when it grows large
// (blobStore). Objects must be kept in the order they were recorded, and
// not be read elsewhere until the build's parsing is done (wait).
func (bs *buildState) keep(objs ...*Object) {
	if bs == nil {
		return
	}
	bs.wait()
	bs.keepNow(objs)
}

// keepAsync keeps objs, whose JSON may be cut out of buf, on another
// goroutine, after what was kept before. buf is given away. Once no
// object points into it, it is left for batchBuffer to hand out again.
func (bs *buildState) keepAsync(objs []*Object, buf []byte) {
	if bs == nil {
		return
	}
	bs.wait()
	if bs.free == nil {
		bs.free = make(chan []byte, 2)
	}
	done := make(chan struct{})
	bs.pending = done
	go func() {
		defer close(done)
		bs.keepNow(objs)
		if bs.blobs.settle() {
			select {
			case bs.free <- buf[:0]:
			default:
			}
		}
	}()
}

// batchBuffer returns an empty buffer for a batch of frames: one
// keepAsync let go of, or a new one.
func (bs *buildState) batchBuffer() []byte {
	if bs != nil {
		select {
		case b := <-bs.free:
			return b
		default:
		}
	}
	return make([]byte, 0, batchBytes)
}

// wait returns once every object given to keep is kept.
func (bs *buildState) wait() {
	if bs != nil && bs.pending != nil {
		<-bs.pending
		bs.pending = nil
	}
}

func (bs *buildState) keepNow(objs []*Object) {
	for _, o := range objs {
		bs.intern.share(o)
	}
	bs.blobs.take(objs...)
}
