package writediff

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// UserAgent is the user agent of the harness's clients, and so the field
// manager of their writes that name none.
const UserAgent = "writediff"

// Protobuf is the content type the Typed steps send.
const Protobuf = "application/vnd.kubernetes.protobuf"

// watchEndTimeout bounds the wait for a sequence's watch to see its
// sentinel.
const watchEndTimeout = 10 * time.Second

// runner runs sequences against one server.
type runner struct {
	plain      dynamic.Interface    // reads, watches, sentinels
	dyn        dynamic.Interface    // Dynamic steps, codes recorded
	typed      kubernetes.Interface // Typed steps, codes recorded
	codes      *codeRecorder
	kubeconfig string
	kubectl    string // found on first use
	cacheDir   string
}

// codeRecorder keeps the status code of the last response through it.
type codeRecorder struct {
	mu   sync.Mutex
	last int
}

// code returns the last response's status code and forgets it; or, when
// no response came, fallback.
func (c *codeRecorder) code(fallback int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	code := c.last
	c.last = 0
	if code == 0 {
		return fallback
	}
	return code
}

// recordingTransport notes each response's status code in rec.
type recordingTransport struct {
	next http.RoundTripper
	rec  *codeRecorder
}

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil {
		t.rec.mu.Lock()
		t.rec.last = resp.StatusCode
		t.rec.mu.Unlock()
	}
	return resp, err
}

func newRunner(cfg *rest.Config, kubeconfig string) (*runner, error) {
	r := &runner{codes: &codeRecorder{}, kubeconfig: kubeconfig}
	base := rest.CopyConfig(cfg)
	base.UserAgent = UserAgent
	base.QPS, base.RateLimiter = -1, nil // no client-side rate limit
	var err error
	if r.plain, err = dynamic.NewForConfig(base); err != nil {
		return nil, fmt.Errorf("writediff: dynamic client: %w", err)
	}
	rec := rest.CopyConfig(base)
	rec.Wrap(func(rt http.RoundTripper) http.RoundTripper { return recordingTransport{next: rt, rec: r.codes} })
	if r.dyn, err = dynamic.NewForConfig(rec); err != nil {
		return nil, fmt.Errorf("writediff: dynamic client: %w", err)
	}
	pb := rest.CopyConfig(rec)
	pb.ContentType = Protobuf
	pb.AcceptContentTypes = Protobuf + ",application/json"
	if r.typed, err = kubernetes.NewForConfig(pb); err != nil {
		return nil, fmt.Errorf("writediff: typed clientset: %w", err)
	}
	return r, nil
}

// Run creates the widget CRD, then runs seqs, each on a fresh namespace,
// against the server cfg reaches. (kubeconfig reaches the same server, for
// kubectl.) It returns the normalized transcript. What the server answers
// is recorded, errors included. The error returned is the harness's own: a
// client it cannot make, a step it cannot send, kubectl missing. Its
// clients have no client-side rate limit and the user agent UserAgent.
func Run(ctx context.Context, cfg *rest.Config, kubeconfig string, seqs []Sequence) (Transcript, error) {
	var tr Transcript
	r, err := newRunner(cfg, kubeconfig)
	if err != nil {
		return tr, err
	}
	defer r.close()
	if tr.Setup, err = setup(ctx, r.plain); err != nil {
		return tr, err
	}
	for _, seq := range seqs {
		st, err := r.sequence(ctx, seq)
		if err != nil {
			return tr, fmt.Errorf("writediff: sequence %s: %w", seq.Name, err)
		}
		tr.Sequences = append(tr.Sequences, st)
	}
	return tr, nil
}

// sequence runs one sequence on a fresh namespace.
func (r *runner) sequence(ctx context.Context, seq Sequence) (SequenceTranscript, error) {
	st := SequenceTranscript{Name: seq.Name}
	suffix := make([]byte, 3)
	if _, err := rand.Read(suffix); err != nil {
		return st, fmt.Errorf("namespace name: %w", err)
	}
	ns := "wd-" + seq.Name + "-" + hex.EncodeToString(suffix)
	norm := newNormalizer(ns)
	nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
	_, err := r.dyn.Resource(namespaces).Create(ctx, nsObj, metav1.CreateOptions{})
	first := outcomeOf(err)
	first.Step = "create namespace"
	first.Code = r.codes.code(first.Code)
	st.Steps = append(st.Steps, first)

	res := seq.Watch
	if res == "" {
		res = "configmaps"
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	events := r.watch(wctx, ns, res, &st)
	stale := map[string]string{}
	for _, s := range seq.Steps {
		o, err := r.step(ctx, ns, s, stale, norm)
		if err != nil {
			return st, fmt.Errorf("step %s: %w", s.Name, err)
		}
		st.Steps = append(st.Steps, o)
	}
	if events != nil {
		end, err := decode(sentinels[res])
		if err != nil {
			return st, err
		}
		if _, err := r.plain.Resource(resources[res]).Namespace(ns).Create(ctx, end, metav1.CreateOptions{}); err != nil {
			st.Watch = "sentinel: " + outcomeOf(err).Message
			stop()
		}
		select {
		case <-events:
		case <-time.After(watchEndTimeout):
			st.Watch = "no sentinel event within " + watchEndTimeout.String()
			stop()
			<-events
		}
	}
	norm.sequence(&st)
	return st, nil
}

// watch opens a watch of res in ns, and collects its events into st until
// the sentinel's ADDED or ctx's end. Then it closes the channel it
// returned. It returns nil when the watch did not open (st.Watch says
// why).
func (r *runner) watch(ctx context.Context, ns, res string, st *SequenceTranscript) <-chan struct{} {
	w, err := r.plain.Resource(resources[res]).Namespace(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		st.Watch = "open: " + outcomeOf(err).Message
		return nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer w.Stop()
		last := ""
		st.EventRVs = "increasing"
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					return
				}
				obj, ok := ev.Object.(*unstructured.Unstructured)
				if !ok {
					st.Events = append(st.Events, string(ev.Type))
					continue
				}
				st.Events = append(st.Events, string(ev.Type)+" "+obj.GetName())
				rv := obj.GetResourceVersion()
				if last != "" && compareRV(last, rv) != "greater" && st.EventRVs == "increasing" {
					st.EventRVs = fmt.Sprintf("not increasing at event %d", len(st.Events))
				}
				last = rv
				if ev.Type == "ADDED" && obj.GetName() == "zz-end" {
					return
				}
			}
		}
	}()
	return done
}

// stored reads the stored object; nil when absent or unreadable.
func (r *runner) stored(ctx context.Context, ns, res, name string) *unstructured.Unstructured {
	if name == "" {
		return nil
	}
	obj, err := r.plain.Resource(resources[res]).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return obj
}

// storedScale reads the scale subresource of the stored object; nil when
// absent or unreadable.
func (r *runner) storedScale(ctx context.Context, ns, res, name string) *unstructured.Unstructured {
	if name == "" {
		return nil
	}
	obj, err := r.plain.Resource(resources[res]).Namespace(ns).Get(ctx, name, metav1.GetOptions{}, "scale")
	if err != nil {
		return nil
	}
	return obj
}

// storedChange tells after beside before.
func storedChange(before, after *unstructured.Unstructured) string {
	switch {
	case before == nil && after == nil:
		return "absent"
	case before == nil:
		return "created"
	case after == nil:
		return "deleted"
	case before.GetResourceVersion() == after.GetResourceVersion():
		return "unchanged"
	}
	return "changed"
}
