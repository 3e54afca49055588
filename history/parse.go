package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
)

// ErrContradiction is wrapped by errors about a cassette whose traffic
// contradicts itself (an RV going backwards in a stream, a MODIFIED of an
// unknown key, a broken continue chain).
var ErrContradiction = errors.New("contradictory history")

type recordKind int

const (
	recOther recordKind = iota
	recList
	recWatch
	recDiscovery
	recError
	recTable
)

// record is one interaction, parsed.
type record struct {
	loc     Location
	kind    recordKind
	req     Request
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
}

// appearance returns the resourceVersions r shows, in the order the
// recording proves: a list's items before its RV, a watch's RV before its
// frames, the frames in stream order.
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
	loc        Location
}

type listMeta struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		ResourceVersion    string `json:"resourceVersion"`
		Continue           string `json:"continue"`
		RemainingItemCount *int64 `json:"remainingItemCount"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
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
func parseInteraction(loc Location, i cassette.Interaction, start time.Time) (*record, error) {
	r := &record{loc: loc, started: -1}
	if !i.Started.IsZero() && !start.IsZero() {
		r.started = i.Started.Sub(start)
	}
	u, err := url.Parse(i.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: url: %v", cassette.ErrFormat, loc, err)
	}
	q, isResource, err := ParseRequest(u)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", cassette.ErrFormat, loc, err)
	}
	if i.Method != "" && i.Method != "GET" {
		return r, nil // writes are not part of the list/watch history
	}
	if !isResource {
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
		r.kind, r.err = recError, parseStatus(loc, i.Code, i.Body)
		return r, nil
	}
	if q.Name != "" {
		return r, nil // a single-object GET
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
	if err := json.Unmarshal(i.Body, &lm); err != nil {
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
	return r, nil
}

func isDiscoveryPath(p string) bool {
	return p == "/version" || p == "/api" || p == "/apis" || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/apis/")
}

type wireEvent struct {
	Type   EventType       `json:"type"`
	Object json.RawMessage `json:"object"`
}

func parseFrames(r *record, i cassette.Interaction) error {
	dec := json.NewDecoder(bytes.NewReader(i.Body))
	for n := 0; ; n++ {
		loc := r.loc
		loc.Event = n
		var we wireEvent
		if err := dec.Decode(&we); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%w: %s: unparsable frame: %v", cassette.ErrFormat, loc, err)
		}
		f := frame{typ: we.Type, loc: loc, at: -1}
		if r.started >= 0 && n < len(i.FrameOffsets) {
			f.at = r.started + i.FrameOffsets[n]
		}
		switch we.Type {
		case Added, Modified, Deleted:
			o, kind, apiVersion, err := ParseObject(we.Object)
			if err != nil {
				return fmt.Errorf("%w: %s: %v", cassette.ErrFormat, loc, err)
			}
			if o.ResourceVersion == "" {
				return fmt.Errorf("%w: %s: %s object has no resourceVersion", cassette.ErrFormat, loc, we.Type)
			}
			if r.kindName == "" {
				r.kindName, r.apiVersion = kind, apiVersion
			}
			f.obj, f.rv = o, o.ResourceVersion
		case Bookmark:
			var m objectMeta
			if err := json.Unmarshal(we.Object, &m); err != nil {
				return fmt.Errorf("%w: %s: bookmark: %v", cassette.ErrFormat, loc, err)
			}
			if m.Metadata.ResourceVersion == "" {
				return fmt.Errorf("%w: %s: bookmark has no resourceVersion", cassette.ErrFormat, loc)
			}
			f.rv = m.Metadata.ResourceVersion
			f.initialEnd = m.Metadata.Annotations[InitialEventsEndAnnotation] == "true"
		case Error:
			f.err = parseStatus(loc, 0, we.Object)
		default:
			return fmt.Errorf("%w: %s: unknown event type %q", cassette.ErrFormat, loc, we.Type)
		}
		r.frames = append(r.frames, f)
	}
}
