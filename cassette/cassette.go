// Package cassette reads and writes lwreplay cassettes. They are go-vcr v4
// cassette files in which every interaction is one HTTP exchange between a
// Kubernetes client and kube-apiserver: a LIST page, a watch stream, a
// discovery answer, an error answer.
//
// A watch interaction's response body holds the exact wire bytes of the
// stream: newline-delimited JSON watch events. Two optional response headers
// carry what go-vcr has no field for:
//
//	X-Lwreplay-Started:       when the request was sent (RFC 3339, nanoseconds)
//	X-Lwreplay-Frame-Offsets: per watch frame, its arrival offset in
//	                          milliseconds since the response began
//	                          (comma-separated decimal, one per frame)
//
// and every interaction lwreplay writes carries X-Lwreplay-Format with the
// format version, checked on load. A cassette without these headers (for
// example one written by go-vcr's own recorder) loads too and replays
// events back-to-back.
//
// Loading is strict. A file cut short (its last interaction has no status
// code) is an error naming the file, the interaction and the line it
// starts on. So is an interaction that cannot be read. WithSalvage loads a
// file cut short without its cut last interaction. Several files are one
// recording only when they are the parts a recorder rotated it into (see
// Recording and Group). LoadRecordings groups what it loads so.
//
// Files are read interaction by interaction, never decoded as one YAML
// document. So a cassette of any size loads in the memory of its largest
// interaction. With WithLazyBodies, the large bodies (a watch stream's
// frames, a big LIST page) stay in the file until they are read
// (Interaction.OpenBody). Memory then follows the interactions'
// metadata.
//
// Typical use:
//
//	recs, err := cassette.LoadRecordings([]string{"cassettes/"})
//	for _, r := range recs {
//		h, err := history.Build(r.Files...)
//		...
//	}
//	c := cassette.New()
//	c.Add(cassette.Interaction{Method: "GET", URL: u, Code: 200, Body: body})
//	err = c.Save("out.yaml")
package cassette

import (
	"errors"
	"net/http"
	"time"
)

// FormatVersion is the version of the lwreplay cassette format this package
// writes and the newest one it reads.
const FormatVersion = 1

// Header names lwreplay adds to recorded responses.
const (
	HeaderFormat       = "X-Lwreplay-Format"
	HeaderStarted      = "X-Lwreplay-Started"
	HeaderFrameOffsets = "X-Lwreplay-Frame-Offsets"
	HeaderStreamEnd    = "X-Lwreplay-Stream-End"
	HeaderReplay       = "X-Lwreplay-Replay"
	// HeaderRedacted ("request-body") says the recorder redacted the
	// request body: it is not what the client sent. It stays in Header.
	HeaderRedacted = "X-Lwreplay-Redacted"
)

// How a recorded watch stream ended (Interaction.StreamEnd).
const (
	// EndEOF: the server ended the stream (a timeout, a closed watch).
	EndEOF = "eof"
	// EndError: the stream broke (a cut connection, a reset).
	EndError = "error"
	// EndClosed: the client closed the stream; the server would have gone on.
	EndClosed = "closed"
)

// ReplayVerbatim marks an interaction of a reproducer cassette: it is
// replayed as recorded, in order, rather than modelled from a history.
const ReplayVerbatim = "verbatim"

// MarkVerbatim marks i to be replayed as recorded (Replay =
// ReplayVerbatim). Given to a recorder as its before-save hook
// (recorder.WithBeforeSave), it makes the recording a reproducer as it is
// written.
func MarkVerbatim(i *Interaction) { i.Replay = ReplayVerbatim }

// IsVerbatim reports whether files hold a reproducer, to be replayed
// verbatim: they have interactions, and every one is marked so.
func IsVerbatim(files ...*File) bool {
	n := 0
	for _, f := range files {
		for _, i := range f.Interactions {
			if i.Replay != ReplayVerbatim {
				return false
			}
			n++
		}
	}
	return n > 0
}

// ErrFormat is wrapped by every error about a cassette's content.
var ErrFormat = errors.New("bad cassette")

// Interaction is one recorded HTTP exchange.
type Interaction struct {
	// Method is the request method, e.g. "GET".
	Method string
	// URL is the full request URL.
	URL string
	// RequestHeader holds the request headers kept in the file.
	RequestHeader http.Header
	// RequestBody is the request body (a write's object or patch, in
	// the encoding its Content-Type header names: JSON, YAML or
	// protobuf bytes); nil when the request had none or it was not kept.
	RequestBody []byte
	// Code is the HTTP status code of the answer.
	Code int
	// Header holds the response headers (without the lwreplay headers,
	// which have fields of their own).
	Header http.Header
	// Body is the response body: a whole document, or a watch stream's
	// frames as they arrived.
	Body []byte
	// Started is when the request was sent; zero when not recorded.
	Started time.Time
	// Duration is how long the response took to complete.
	Duration time.Duration
	// FrameOffsets holds, for a watch stream, each frame's arrival offset
	// since the response began; nil when not recorded.
	FrameOffsets []time.Duration
	// StreamEnd says how a watch stream ended: EndEOF, EndError or
	// EndClosed; "" when not recorded.
	StreamEnd string
	// Replay is ReplayVerbatim for interactions replayed as recorded;
	// "" for traffic the replayer models from a history.
	Replay string

	lazy *lazyBody // the body, left in the file (WithLazyBodies)
}

// File is a cassette file's interactions, in recorded order.
type File struct {
	// Path is where the file was loaded from, or will be saved to.
	Path string
	// Interactions holds the exchanges in recorded order.
	Interactions []Interaction
	// Damage says what a salvaging load dropped from the file (see
	// WithSalvage); nil for a file loaded whole.
	Damage *Damage
}

// New returns an empty cassette.
func New() *File { return &File{} }

// Add appends an interaction.
func (f *File) Add(i Interaction) { f.Interactions = append(f.Interactions, i) }
