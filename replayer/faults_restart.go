package replayer

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/inproc"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

// An apiserver restart (apiserver-restart). Every open watch ends, and
// every request is refused at connect for a while. The restarted server's
// watch caches start anew, each at its resource's newest state. So does
// kube-apiserver's cacher: it starts from a fresh LIST. Its watch cache
// refuses a watch from below that LIST's resourceVersion ("too old
// resource version", k8s.io/apiserver pkg/storage/cacher/watch_cache.go,
// getAllEventsSinceLocked). What the history holds is unchanged: the
// server's storage, etcd, keeps every write across the restart.

// errConnRefused is what a request to a restarting server fails with
// through the in-process transport: a dial refused, as client-go's
// utilnet.IsConnectionRefused recognises it (errors.Is ECONNREFUSED).
var errConnRefused = &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}

// restarts is the state apiserver-restart leaves on a server.
type restarts struct {
	mu sync.Mutex // guards every field below
	// gone is closed at the next restart: a watch opened before it ends
	gone chan struct{}
	// downUntil is when the server answers again; zero before any restart
	downUntil time.Time
	// cacheStarts holds, by Resource.ID, the resourceVersion the
	// restarted server's watch cache of that resource starts at
	cacheStarts map[history.Resource]string
	// struck holds the points (At) of the one-shot decisions that
	// restarted the server. A decision at point N restarts it once, not
	// once per resource that reaches point N.
	struck map[int]bool
}

func newRestarts() *restarts {
	return &restarts{gone: make(chan struct{}), cacheStarts: map[history.Resource]string{}, struck: map[int]bool{}}
}

// goneC returns a channel closed at the server's next restart.
func (x *restarts) goneC() <-chan struct{} {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.gone
}

// down reports whether the server is restarting now: requests are
// refused until it is up again.
func (x *restarts) down() bool {
	x.mu.Lock()
	until := x.downUntil
	x.mu.Unlock()
	return !until.IsZero() && time.Now().Before(until)
}

// refuseConnection answers a request to a restarting server. Through the
// in-process transport, the request fails as a refused dial does. Over a
// socket, the connection is closed before any answer, as by a server that
// accepted it and died. Where neither can be done, it answers 503.
func refuseConnection(w http.ResponseWriter) {
	if inproc.Refuse(w, errConnRefused) {
		return
	}
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
		return
	}
	status.Write(w, apierrors.NewServiceUnavailable("the apiserver is restarting").ErrStatus)
}

// cacheStart returns the resourceVersion the restarted server's watch
// cache of res starts at; "" before any restart.
func (x *restarts) cacheStart(res history.Resource) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.cacheStarts[res.ID()]
}

// restartServer restarts the apiserver when a LIST or WATCH arrives
// (apiserver-restart). It ends every open watch and refuses this request
// and every other for "down" seconds. It starts each resource's watch
// cache at its newest state. A decision at one point restarts the server
// once. One that holds from a point, or acts at every point, restarts it
// at each request that reaches a point: a crash-looping apiserver. (The
// requests while it is down reach none.)
func restartServer(c *pointCtx, d faults.Decision) (func() error, bool) {
	if !c.s.opts.hooks.strikesAt(c.l.Resource) {
		return nil, false
	}
	if once := !d.Persistent && d.At >= 0; once {
		// claimed here, under the lock: a behaviour that can act is acted
		// out, and two resources at point N must not both restart
		if !c.s.restart.claim(d.At) {
			return nil, false
		}
	}
	return func() error {
		down := time.Duration(d.Param("down")) * time.Second
		start := c.s.restart.now(c.s.store.newestRVs(), down)[c.l.Resource.ID()]
		c.s.fx.fire(c.pt, d.Fault, fmt.Sprintf("every watch ended, connections refused for %s, the watch cache starting at rv %s", down, start))
		refuseConnection(c.w)
		return errAnswered
	}, true
}

// claim claims the restart of a one-shot decision at point at: true the
// first time, false after.
func (x *restarts) claim(at int) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.struck[at] {
		return false
	}
	x.struck[at] = true
	return true
}

// now restarts the server. It ends every open watch and refuses requests
// for down. Each resource's watch cache starts at starts, its newest
// state by Resource.ID. It returns starts.
func (x *restarts) now(starts map[history.Resource]string, down time.Duration) map[history.Resource]string {
	x.mu.Lock()
	defer x.mu.Unlock()
	close(x.gone)
	x.gone = make(chan struct{})
	x.downUntil = time.Now().Add(down)
	for id, rv := range starts {
		x.cacheStarts[id] = rv
	}
	return starts
}
