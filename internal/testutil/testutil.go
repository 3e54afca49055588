// Package testutil holds the helpers that several of lwreplay's test
// packages share. They are quiet client-go logging, the WatchList
// switches, a seeded configmap history, a cut watch body and a rendering
// of informer state. It is imported by tests only.
//
// It must not import replayer, recorder or any package whose own tests
// import it. An internal test cannot import a package that imports the
// package under test.
package testutil

import (
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// QuietKlog sends klog's output, which client-go logs to, nowhere for the
// rest of the process. A TestMain calls it before m.Run, so that no test
// changes this process-wide setting and tests may run in parallel.
func QuietKlog() {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
}

// WatchListEnv is the client-go environment variable that turns its
// WatchList client on or off (it is on unless set to "false").
const WatchListEnv = "KUBE_FEATURE_WatchListClient"

// RequireWatchList skips t, a test that needs client-go's WatchList
// client, when the environment turns that client off.
func RequireWatchList(t testing.TB) {
	t.Helper()
	if os.Getenv(WatchListEnv) == "false" {
		t.Skip(WatchListEnv + "=false")
	}
}

// NoWatchList is a client that does not support WatchList semantics: a
// reflector over cache.ToListWatcherWithWatchListSemantics(lw,
// NoWatchList{}) lists and then watches.
type NoWatchList struct{}

// IsWatchListSemanticsUnSupported opts the reflector out of WatchList.
func (NoWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// ObjectsState renders objects, an informer's store for instance, as
// sorted "namespace/name@resourceVersion" strings (the type's name for an
// object without metadata).
func ObjectsState(objs []any) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		m, err := meta.Accessor(o)
		if err != nil {
			out = append(out, fmt.Sprintf("%T", o))
			continue
		}
		k, _ := cache.MetaNamespaceKeyFunc(o)
		out = append(out, k+"@"+m.GetResourceVersion())
	}
	sort.Strings(out)
	return out
}

// CutBody returns resp's body ending after frames watch frames have been
// read, as if the connection had dropped there; closing it closes the
// body. A frame is a line of a JSON watch, or a length-prefixed frame of
// a protobuf one (Content-Type application/vnd.kubernetes.protobuf).
func CutBody(resp *http.Response, frames int) io.ReadCloser {
	return &cutBody{rc: resp.Body, left: frames,
		protobuf: strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.kubernetes.protobuf")}
}

// cutBody ends a body after a number of frames.
type cutBody struct {
	rc       io.ReadCloser
	left     int
	protobuf bool
	head     []byte // a protobuf frame's length, as read so far
	need     int    // bytes of the current protobuf frame still to come
}

func (c *cutBody) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, io.EOF
	}
	n, err := c.rc.Read(p)
	for i := 0; i < n; {
		if !c.protobuf {
			i++
			if p[i-1] == '\n' && c.ended() {
				return i, nil
			}
			continue
		}
		if c.need == 0 && len(c.head) < 4 {
			c.head = append(c.head, p[i])
			i++
			if len(c.head) == 4 {
				c.need = int(binary.BigEndian.Uint32(c.head))
				if c.need == 0 && c.ended() {
					return i, nil
				}
			}
			continue
		}
		take := min(c.need, n-i)
		i, c.need = i+take, c.need-take
		if c.need == 0 && c.ended() {
			return i, nil
		}
	}
	return n, err
}

// ended counts a frame read whole; it reports whether it was the last.
func (c *cutBody) ended() bool {
	c.head = c.head[:0]
	c.left--
	return c.left == 0
}

func (c *cutBody) Close() error { return c.rc.Close() }

// ConfigMap returns a typed configmap ns/name at resourceVersion rv, whose
// UID is "uid-" + name.
func ConfigMap(ns, name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv, UID: types.UID("uid-" + name)}}
}

// MirrorHandler is a configmap handler as the tombstone example plants it:
// its delete type-asserts a *corev1.ConfigMap, and panics on a tombstone
// unless it is fixed.
func MirrorHandler(fixed bool) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok && fixed {
			obj = d.Obj
		}
		_ = obj.(*corev1.ConfigMap).Name
	}}
}
