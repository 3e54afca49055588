package level

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/util/framer"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	restclientwatch "k8s.io/client-go/rest/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/history"
)

// The typed level asks the same replayer the same requests as the wire
// level and reads the same bytes. But it keeps every decoded LIST body and
// watch frame, keyed by its bytes, for the cassette's later runs. A frame
// seen before costs a map lookup and a deep copy instead of a JSON decode.
// Bytes a fault garbled decode, once, to the same error client-go's
// decoders give. HTTP errors and retries follow client-go's REST client.

// maxMemo caps how many distinct bodies and frames one cassette keeps.
const maxMemo = 1 << 16

// maxRetries is how often client-go's REST client retries a request the
// server asked it to retry (rest.Request's default).
const maxRetries = 10

// Cache holds a cassette's decoded answers, per Go type of object. It is
// safe for concurrent use.
type Cache struct {
	mu     sync.RWMutex
	byType map[reflect.Type]*memo
	// objects are the history objects of the decoded unstructured objects the
	// memo stores, by the address of their content map. The memo keeps every
	// such map alive for good, so no other map can take its address. A decode
	// the memo does not store is never remembered: its map may be collected.
	// It was not stored when it lost a race to another worker, or the memo was
	// full.
	objects map[uintptr]*history.Object
	// codecs are the memos of a typed-level clientset's decodes, by the Go
	// type decoded into (see memoCodec); made on first use.
	codecs map[reflect.Type]*memo
}

// NewCache returns an empty cache of decoded answers.
func NewCache() *Cache {
	return &Cache{byType: map[reflect.Type]*memo{}, objects: map[uintptr]*history.Object{}}
}

// remember keeps the history object of a decoded object (a watch event's,
// or a list's items).
func (d *Cache) remember(obj runtime.Object) {
	var items []map[string]any
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		items = append(items, o.Object)
	case *unstructured.UnstructuredList:
		for _, it := range o.Items {
			items = append(items, it.Object)
		}
	}
	for _, m := range items {
		ho, err := ObjectOf(&unstructured.Unstructured{Object: m})
		if err != nil {
			continue
		}
		d.mu.Lock()
		if len(d.objects) < maxMemo {
			d.objects[reflect.ValueOf(m).Pointer()] = ho
		}
		d.mu.Unlock()
	}
}

// Known returns the history object of obj when obj's content is a decoded
// object's own (shared, unchanged by contract).
func (d *Cache) Known(obj any) (*history.Object, bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u == nil || u.Object == nil {
		return nil, false
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	o, ok := d.objects[reflect.ValueOf(u.Object).Pointer()]
	return o, ok
}

// memo is the decoded answers for one Go type of object.
type memo struct {
	owner   *Cache
	objects runtime.Decoder // decodes one object (or list) of the type
	events  runtime.Decoder // decodes a watch frame's envelope

	mu     sync.RWMutex
	frames map[string]decodedEvent // watch frames
	lists  map[string]decodedEvent // LIST bodies (typ unset)
}

type decodedEvent struct {
	typ watch.EventType
	obj runtime.Object
	err error
	gvk *schema.GroupVersionKind // the kind decoded (memoCodec's decodes)
}

// memoFor returns the memo for objects of example's type.
func (d *Cache) memoFor(example runtime.Object) (*memo, error) {
	t := reflect.TypeOf(example)
	d.mu.Lock()
	defer d.mu.Unlock()
	if m, ok := d.byType[t]; ok {
		return m, nil
	}
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.WithoutConversion().SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok || info.StreamSerializer == nil {
		return nil, fmt.Errorf("%w: client-go's scheme has no JSON stream serializer", ErrSetup)
	}
	m := &memo{owner: d, events: info.StreamSerializer.Serializer, frames: map[string]decodedEvent{}, lists: map[string]decodedEvent{}}
	switch example.(type) {
	case *unstructured.Unstructured:
		m.objects = unstructured.UnstructuredJSONScheme
	default:
		if _, _, err := scheme.Scheme.ObjectKinds(example); err != nil {
			return nil, fmt.Errorf("%w: %T is not in client-go's scheme: %v", ErrSetup, example, err)
		}
		m.objects = scheme.Codecs.UniversalDeserializer()
	}
	d.byType[t] = m
	return m, nil
}

// event decodes one watch frame as client-go's watch decoder does; the
// object is a copy unless shared.
func (m *memo) event(frame []byte, shared bool) (watch.EventType, runtime.Object, error) {
	e := m.cached(m.frames, frame, func() (e decodedEvent) {
		d := restclientwatch.NewDecoder(streaming.NewDecoder(framer.NewJSONFramedReader(io.NopCloser(bytes.NewReader(frame))), m.events), m.objects)
		e.typ, e.obj, e.err = d.Decode()
		return e
	})
	obj, err := e.hand(shared)
	return e.typ, obj, err
}

// list decodes one LIST body. The list is a copy unless shared. Then it is
// the decoded list itself: the reflector reads its items and keeps them,
// changing neither.
func (m *memo) list(body []byte, shared bool) (runtime.Object, error) {
	e := m.cached(m.lists, body, func() (e decodedEvent) {
		e.obj, e.err = runtime.Decode(m.objects, body)
		return e
	})
	return e.hand(shared)
}

// cached returns table's entry for key, decoding it on the first call.
// The first decode stored wins: a worker whose decode lost the race gets
// the winner's entry. Only a stored entry's objects are remembered (see
// decoded.objects); one decoded while the table is full is handed out as
// it is.
func (m *memo) cached(table map[string]decodedEvent, key []byte, decode func() decodedEvent) decodedEvent {
	m.mu.RLock()
	e, ok := table[string(key)]
	m.mu.RUnlock()
	if ok {
		return e
	}
	e = decode()
	m.mu.Lock()
	defer m.mu.Unlock()
	if won, ok := table[string(key)]; ok {
		return won
	}
	if len(table) >= maxMemo {
		return e
	}
	table[string(key)] = e
	if e.err == nil && e.typ != watch.Error && e.typ != watch.Bookmark {
		m.owner.remember(e.obj)
	}
	return e
}

// hand returns e's object (a copy unless shared) or its error.
func (e decodedEvent) hand(shared bool) (runtime.Object, error) {
	switch {
	case e.err != nil:
		return nil, e.err
	case shared:
		return e.obj, nil
	}
	return e.obj.DeepCopyObject(), nil
}

// typedListWatch returns the typed level's ListWatch of res through cfg's
// transport, decoding through d.
func typedListWatch(cfg *rest.Config, d *Cache, res history.Resource, example runtime.Object, shared bool) (*cache.ListWatch, error) {
	m, err := d.memoFor(example)
	if err != nil {
		return nil, err
	}
	c := &typedClient{rt: cfg.Transport, base: cfg.Host + resourcePath(res),
		gr: schema.GroupResource{Group: res.Group, Resource: res.Resource}}
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			body, err := c.get(ctx, o)
			if err != nil {
				return nil, err
			}
			return m.list(body, shared)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.Watch = true
			resp, err := c.do(ctx, o)
			if err != nil {
				return nil, err
			}
			dec := &frameDecoder{body: resp.Body, lines: bufio.NewReaderSize(resp.Body, 4096), memo: m, shared: shared}
			return watch.NewStreamWatcher(dec, apierrors.NewClientErrorReporter(http.StatusInternalServerError, http.MethodGet, "ClientWatchDecoding")), nil
		},
	}, nil
}

// resourcePath is the URL path of res in all namespaces.
func resourcePath(res history.Resource) string {
	if res.Group == "" {
		return "/api/" + res.Version + "/" + res.Resource
	}
	return "/apis/" + res.Group + "/" + res.Version + "/" + res.Resource
}

// typedClient sends the typed level's requests to the replay.
type typedClient struct {
	rt   http.RoundTripper
	base string
	gr   schema.GroupResource
}

// get sends a LIST and returns its body.
func (c *typedClient) get(ctx context.Context, o metav1.ListOptions) ([]byte, error) {
	resp, err := c.do(ctx, o)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// do sends one GET with o's parameters and retries as client-go's REST
// client does: a retryable connection error or a 429/5xx with Retry-After,
// up to ten times. It returns a 200 answer or the error client-go would.
func (c *typedClient) do(ctx context.Context, o metav1.ListOptions) (*http.Response, error) {
	q, err := metav1.ParameterCodec.EncodeParameters(&o, metav1.SchemeGroupVersion)
	if err != nil {
		return nil, err
	}
	u := c.base
	if enc := url.Values(q).Encode(); enc != "" {
		u += "?" + enc
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := c.rt.RoundTrip(req)
		wait, retry := time.Duration(0), false
		switch {
		case err != nil:
			if utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) {
				wait, retry = time.Second, true
			}
			err = &url.Error{Op: "Get", URL: u, Err: err}
		case resp.StatusCode == http.StatusOK:
			return resp, nil
		default:
			if s, ok := retryAfter(resp); ok && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500) {
				wait, retry = time.Duration(s)*time.Second, true
			}
			err = c.statusError(resp)
		}
		if !retry || attempt >= maxRetries {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(wait):
		}
	}
}

// retryAfter reads a response's Retry-After seconds.
func retryAfter(resp *http.Response) (int, bool) {
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	s, err := strconv.Atoi(v)
	if err != nil {
		return 0, false
	}
	return s, true
}

// statusError reads a non-200 answer and returns the error client-go's
// REST client makes of it: the Status it carries, or a generic one.
func (c *typedClient) statusError(resp *http.Response) error {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var st metav1.Status
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" && st.Status != metav1.StatusSuccess {
		if st.Code == 0 {
			st.Code = int32(resp.StatusCode)
		}
		return &apierrors.StatusError{ErrStatus: st}
	}
	message := "unknown"
	if ct := resp.Header.Get("Content-Type"); ct == "" || strings.HasPrefix(ct, "text/") {
		message = strings.TrimSpace(string(body))
	}
	s, _ := retryAfter(resp)
	return apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodGet, c.gr, "", message, s, true)
}

// frameDecoder reads a watch body one line at a time — the replayer ends
// every frame with a newline — and decodes each through the memo. A body
// that ends inside a frame ends the stream as client-go's JSON framer
// does: io.ErrUnexpectedEOF, or the error that cut it.
type frameDecoder struct {
	body   io.Closer
	lines  *bufio.Reader
	memo   *memo
	shared bool
	buf    []byte
}

// Decode returns the next event, or the error reading it.
func (d *frameDecoder) Decode() (watch.EventType, runtime.Object, error) {
	for {
		d.buf = d.buf[:0]
		var err error
		for {
			var line []byte
			line, err = d.lines.ReadSlice('\n')
			d.buf = append(d.buf, line...)
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		frame := bytes.TrimSpace(d.buf)
		switch {
		case err == nil && len(frame) == 0:
			continue
		case err == nil:
			return d.memo.event(frame, d.shared)
		case errors.Is(err, io.EOF) && len(frame) > 0:
			return "", nil, io.ErrUnexpectedEOF
		default:
			return "", nil, err
		}
	}
}

// Close closes the body.
func (d *frameDecoder) Close() { _ = d.body.Close() }
