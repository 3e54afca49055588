// Package recorder captures real Kubernetes list/watch traffic into lwreplay
// cassettes. It is an http.RoundTripper wrapper that tees every byte to the
// client as it arrives. It records LIST pages when read, and watch streams
// frame by frame, with arrival offsets.
//
// Typical use with client-go:
//
//	rec, err := recorder.New("incident.yaml", recorder.WithFlushInterval(5*time.Second))
//	cfg.Wrap(rec.Wrap)
//	... run informers ...
//	err = rec.Close()
//
// What is recorded: every answer the client reads (discovery, LIST pages,
// GETs, error answers). It is recorded once read to its end, or when closed
// early if what was read is a whole JSON document. Watch streams (2xx
// answers to watch=true or watch=1) are recorded frame by frame. A frame is
// a complete JSON document, found by brace depth outside strings. It is
// kept when its last byte arrives, with its arrival offset since the
// request was sent. A watch that is cut or cancelled keeps its complete
// frames; a partial last frame is dropped and counted in
// Stats.PartialFrames. A body the client asked gzipped is recorded decoded.
// Writes (POST, PUT, PATCH, DELETE) are recorded with their answer, and
// their request body as sent (JSON, YAML or protobuf bytes). So a
// controller's recording holds what it wrote (history.Build lists them:
// History.Writes).
//
// What is never written: the request headers Authorization,
// Proxy-Authorization, Cookie and Impersonate-*, and the response header
// Set-Cookie. Nor user info in URLs, nor token-like query parameters:
// access_token, token, id_token, refresh_token, bearer_token,
// client_secret, password, api_key, apikey. Options redact Secret values,
// chosen fields and managedFields from bodies, request bodies included. A
// Secret a controller creates is redacted in its request as in its answer
// (see request.go for the encodings). Redaction applies to what is written
// only: the client gets the original bytes and the server the original
// request. A body that is redacted is written as re-encoded JSON (a
// protobuf request body as protobuf); others are kept byte for byte.
//
// Saving: the cassette is rewritten every flush interval, by Flush, and by Close. It is written to a temporary file,
// renamed over it. An open watch is written with its frames so far, so a crash loses at most one interval (see
// WithFlushInterval for large files). The current file's finished answers and splittable watch frames may exceed the
// maximum size. Then they are written out for good, and the recorder goes on in the next file: incident.yaml,
// incident_001.yaml, incident_002.yaml, ... After incident_999.yaml comes incident_z1000.yaml. The names sort in recording
// order, so cassette.LoadAll on their directory reads them in order. A watch still open at a rotation is split after its
// last complete frame. The next file goes on with a watch interaction for the same collection, from the resourceVersion of
// that frame (without sendInitialEvents). It starts when that frame arrived, and holds the stream's later frames. That is
// what the client's own re-watch would have recorded. Some watches cannot be split: a WatchList stream inside its initial
// events, or a watch from resourceVersion "" or "0" inside its leading ADDED run. Such a watch moves whole to the next
// file. Each file loads alone; together they build one history.
package recorder

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
)

// Errors a Recorder returns wrap one of these.
var (
	// ErrOptions is wrapped by errors about New's arguments.
	ErrOptions = errors.New("bad recorder options")
	// ErrWrite is wrapped by errors writing a cassette file; the message
	// names the file.
	ErrWrite = errors.New("cannot write cassette")
	// ErrClosed is returned by Flush after Close.
	ErrClosed = errors.New("recorder closed")
)

// Option configures a Recorder.
type Option func(*options)

type options struct {
	flushInterval     time.Duration
	maxSize           int64
	redactSecrets     bool
	redactFields      []string
	keepManagedFields bool
	beforeSave        []func(*cassette.Interaction)
}

func defaults() options {
	return options{flushInterval: 5 * time.Second, maxSize: 16 << 20, keepManagedFields: true}
}

// WithFlushInterval sets how often the cassette is written (default 5 s; 0
// writes only at rotations, Flush and Close). The current file is written
// whole each time; when that takes more than a quarter of the interval (a
// file of many megabytes: YAML is written at some 30 MB/s), flushes are
// spaced to four times the writing time. So writing takes at most a fifth
// of a core, and a crash loses at most that long.
func WithFlushInterval(d time.Duration) Option { return func(o *options) { o.flushInterval = d } }

// WithMaxSize sets the size at which the recorder rotates to a numbered next
// file (default 16 MiB). It bounds the memory the recorder holds: past
// twice this size (when writing falls behind), the client's reads wait
// for the rotation.
func WithMaxSize(n int64) Option { return func(o *options) { o.maxSize = n } }

// WithRedactSecrets replaces the data and stringData of Secrets
// consistently. Each value becomes the base64 of its HMAC-SHA256 under a
// key drawn per recorder. So equal values stay equal, and data stays
// valid base64. A Secret's kubectl last-applied-configuration annotation
// becomes "REDACTED".
func WithRedactSecrets(on bool) Option { return func(o *options) { o.redactSecrets = on } }

// WithRedactFields redacts the values at these JSONPath expressions in
// every object recorded (list items, watch event objects, single objects).
// Supported: field names and every element, with or without braces, e.g.
// "{.spec.containers[*].env}", ".metadata.annotations", ".data.*". Escape a
// dot inside a name with a backslash, as kubectl does. A string there
// becomes "REDACTED"; in an object or array every string inside does
// (numbers, booleans and keys are kept, so objects still decode). Indexes,
// slices, filters, unions, recursive descent and paths reaching kind,
// apiVersion, or metadata's name, namespace, uid and resourceVersion are
// refused by New.
func WithRedactFields(paths ...string) Option {
	return func(o *options) { o.redactFields = append(o.redactFields, paths...) }
}

// WithKeepManagedFields keeps (default) or drops metadata.managedFields.
func WithKeepManagedFields(keep bool) Option { return func(o *options) { o.keepManagedFields = keep } }

// WithBeforeSave adds a hook run on every interaction as it is written, in
// the order given, as go-vcr's BeforeSaveHook. It may change what is
// written, never what the client gets. (cassette.MarkVerbatim turns the
// recording into a reproducer.) It runs at every flush and rotation, on a
// copy of what was recorded so far.
func WithBeforeSave(hook func(*cassette.Interaction)) Option {
	return func(o *options) { o.beforeSave = append(o.beforeSave, hook) }
}

// Stats counts what a Recorder has captured so far.
type Stats struct {
	Interactions  int   // answers recorded; a watch counts once its answer begins
	ListPages     int   // 2xx answers to collection GETs that are not watches
	Watches       int   // 2xx watch answers
	Objects       int   // list items and initial events
	Events        int   // ADDED, MODIFIED, DELETED frames
	Bookmarks     int   // BOOKMARK frames
	Errors        int   // non-2xx answers and ERROR events
	Bytes         int64 // response body bytes the client read through recorded answers
	PartialFrames int   // incomplete frames dropped at a cut
	Writes        int   // requests other than GET and HEAD recorded (creates, updates, patches, deletes)
	DroppedBodies int   // request bodies not written: redaction could not rewrite them
	Files         []string
}

type counters struct {
	interactions, pages, watches, objects, events, bookmarks, errors, bytes, partial, writes, dropped atomic.Int64
}

// Recorder records the traffic of the transports it wraps into a cassette.
// It is safe for concurrent use.
type Recorder struct {
	opts  options
	path  string
	rd    *redactor
	stats counters
	size  atomic.Int64  // sealable bytes of the current file
	gen   atomic.Uint64 // bumped on every change to record

	saveMu sync.Mutex // held while a file is written; before mu
	saved  uint64     // gen last written

	mu      sync.Mutex
	entries []*entry // the current file's, in order of answer
	cur     string   // the current file
	index   int      // its number (0: path itself)
	files   []string
	unsaved []*cassette.File // finished files not yet written
	closed  bool

	rotate    chan struct{}
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error

	errMu   sync.Mutex
	lastErr error
}

// New returns a recorder writing to path (which must end in .yaml). It
// checks that path's directory can be written, creating it if needed, and
// starts the periodic flush; Close stops it.
func New(path string, opts ...Option) (*Recorder, error) {
	o := defaults()
	for _, fn := range opts {
		fn(&o)
	}
	if !strings.HasSuffix(path, ".yaml") || path == ".yaml" {
		return nil, fmt.Errorf("%w: %q: a cassette file name must end in .yaml", ErrOptions, path)
	}
	fields, err := o.check()
	if err != nil {
		return nil, err
	}
	rd := &redactor{secrets: o.redactSecrets, dropManaged: !o.keepManagedFields, key: make([]byte, 32), fields: fields}
	if _, err := rand.Read(rd.key); err != nil {
		return nil, fmt.Errorf("recorder: redaction key: %w", err)
	}
	if err := probe(path); err != nil {
		return nil, err
	}
	r := &Recorder{
		opts: o, path: path, rd: rd, cur: path,
		rotate: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go r.loop()
	return r, nil
}

// CheckOptions reports the first of opts that New would refuse, without
// creating anything. It is an error wrapping ErrOptions: a size or
// interval out of range, or a redact path it cannot write through.
func CheckOptions(opts ...Option) error {
	o := defaults()
	for _, fn := range opts {
		fn(&o)
	}
	_, err := o.check()
	return err
}

// check checks o's values and returns its parsed redact paths.
func (o options) check() ([]fieldPath, error) {
	if o.maxSize <= 0 {
		return nil, fmt.Errorf("%w: max size %d: want > 0", ErrOptions, o.maxSize)
	}
	if o.flushInterval < 0 {
		return nil, fmt.Errorf("%w: flush interval %s: want >= 0", ErrOptions, o.flushInterval)
	}
	var fields []fieldPath
	for _, p := range o.redactFields {
		fp, err := parseFieldPath(p)
		if err != nil {
			return nil, err
		}
		fields = append(fields, fp)
	}
	return fields, nil
}

// probe checks that files can be created in path's directory.
func probe(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w %s: %w", ErrWrite, path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.probe")
	if err != nil {
		return fmt.Errorf("%w %s: %w", ErrWrite, path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// loop flushes every interval and rotates when asked, until Close.
func (r *Recorder) loop() {
	defer close(r.done)
	var tick <-chan time.Time
	if r.opts.flushInterval > 0 {
		t := time.NewTicker(r.opts.flushInterval)
		defer t.Stop()
		tick = t.C
	}
	var next time.Time // no periodic flush before
	for {
		select {
		case <-r.stop:
			return
		case now := <-tick:
			if now.Before(next) {
				continue
			}
			r.setErr(r.flushIfChanged())
			next = now.Add(flushSpacing(r.opts.flushInterval, time.Since(now)))
		case <-r.rotate:
			r.setErr(r.rotateIfFull())
		}
	}
}

// flushSpacing returns the time from one periodic flush to the next. It is
// the interval, or four times what the last write took when that is
// longer. So rewriting a large file takes at most a fifth of a core.
func flushSpacing(interval, took time.Duration) time.Duration {
	return max(interval, 4*took)
}

func (r *Recorder) setErr(err error) {
	r.errMu.Lock()
	r.lastErr = err
	r.errMu.Unlock()
}

// Err returns the outcome of the last periodic flush or rotation: nil, or
// an error wrapping ErrWrite that names the file.
func (r *Recorder) Err() error {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.lastErr
}

func (r *Recorder) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// Stats returns what has been captured so far.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	files := append([]string(nil), r.files...)
	r.mu.Unlock()
	c := &r.stats
	return Stats{
		Interactions:  int(c.interactions.Load()),
		ListPages:     int(c.pages.Load()),
		Watches:       int(c.watches.Load()),
		Objects:       int(c.objects.Load()),
		Events:        int(c.events.Load()),
		Bookmarks:     int(c.bookmarks.Load()),
		Errors:        int(c.errors.Load()),
		Bytes:         c.bytes.Load(),
		PartialFrames: int(c.partial.Load()),
		Writes:        int(c.writes.Load()),
		DroppedBodies: int(c.dropped.Load()),
		Files:         files,
	}
}

// Flush writes the cassette now. It writes the current file with every
// finished answer and the complete frames of open watches. It writes any
// earlier file a failed rotation could not write. A failure leaves the
// last file written as it was and names the file.
func (r *Recorder) Flush() error {
	if r.isClosed() {
		return ErrClosed
	}
	r.saveMu.Lock()
	defer r.saveMu.Unlock()
	return r.flushLocked()
}

// Close records open streams up to their last complete frame, writes the
// cassette a last time and stops the periodic flush. Reads from answers
// still open pass through unrecorded. Later calls return the first one's
// result.
func (r *Recorder) Close() error {
	r.closeOnce.Do(func() {
		close(r.stop)
		<-r.done
		r.saveMu.Lock()
		defer r.saveMu.Unlock()
		now := time.Now()
		r.mu.Lock()
		r.closed = true
		for _, e := range r.entries {
			e.finish(now, false)
		}
		r.mu.Unlock()
		r.closeErr = r.flushLocked()
	})
	return r.closeErr
}
