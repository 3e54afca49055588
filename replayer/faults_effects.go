package replayer

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// effects holds how the replayer acts out every fault of faults.Registry,
// keyed by the faults' name constants. A fault has a behaviour at each kind
// of point its registry entry names, and none at any other. A test keeps
// this table and the registry equal.
var effects = map[string]effect{
	faults.DropBookmark:            {frame: dropBookmark},
	faults.DropAllBookmarks:        {watch: dropAllBookmarks},
	faults.CloseWatch:              {watch: closeWatch},
	faults.ExpireWatch:             {watch: expireWatch},
	faults.CloseAfterInitialEvents: {watch: closeAfterInitialEvents},
	faults.ExpireContinue:          {list: expireContinue},
	faults.TooLargeRV:              {list: tooLargeRV},
	faults.StaleList:               {list: staleList},
	faults.ConsistentReadWait:      {list: consistentReadWait},
	faults.HTTPError:               {list: answerHTTPError, watch: answerHTTPError},
	faults.Throttle:                {list: throttle, watch: throttle},
	faults.Reset:                   {frame: resetFrame},
	faults.Delay:                   {frame: delayFrame},
	faults.WatchlistUnsupported:    {watch: refuseWatchList},
	faults.InitialEventsIgnored:    {watch: ignoreInitialEvents},
	faults.OpaqueRV:                {plan: opaqueRV},
	faults.Recreate:                {watch: recreateObject},
	faults.Reorder:                 {frame: reorderEvents},
	faults.Duplicate:               {frame: duplicateEvent},
	faults.DropEvent:               {frame: dropEvent},
	faults.RVRegress:               {frame: regressRV},
	faults.BookmarkRegress:         {frame: regressBookmark},
	faults.GarbleFrame:             {frame: garbleFrame},
	faults.MissingInitialEventsEnd: {watch: withholdInitialEventsEnd},
	faults.CrashAfterWrite:         {write: crashAfterWrite},
	faults.GracefulRestart:         {list: stopTarget, watch: stopTarget},
	faults.APIServerRestart:        {list: restartServer, watch: restartServer},
}

// effect is how the replayer acts out one fault: its behaviour at each
// kind of point, nil where it does not act.
type effect struct {
	list  behaviour // at a LIST request
	watch behaviour // at a WATCH request, when it opens
	frame behaviour // at a frame boundary of a watch stream
	plan  behaviour // at the start of the replay (a plan-level fault)
	write behaviour // at a write request of the target's, once answered
}

// at returns e's behaviour at a point of kind k; nil if it has none.
func (e effect) at(k faults.PointKind) behaviour {
	switch k {
	case faults.ListPoint:
		return e.list
	case faults.WatchPoint:
		return e.watch
	case faults.FramePoint:
		return e.frame
	case faults.PlanPoint:
		return e.plan
	case faults.WritePoint:
		return e.write
	}
	return nil
}

// behaviour is what a fault does at a point that decision d applies to.
// With ok false it cannot act there (drop-bookmark at an event, ...); the
// next decision that applies may. Otherwise act does it, firing d as it
// sees fit. It returns errAnswered when it has answered the request,
// another error when the watch stream must end, nil to go on.
type behaviour func(c *pointCtx, d faults.Decision) (act func() error, ok bool)

// errAnswered says a fault answered a LIST or WATCH request itself.
var errAnswered = errors.New("request answered by a fault")

// pointCtx is what a decision point sees. Fields that are not of the
// point's kind are zero.
type pointCtx struct {
	s  *Server
	pt faults.Point // numbered by reach

	// at a LIST or WATCH point: the request
	w http.ResponseWriter
	r *http.Request
	q history.RequestInfo
	l *history.Log

	// at a LIST point
	filter filter
	limit  int64         // the page size the answer would have
	tok    continueToken // the request's continue token, if it has one

	// at a WATCH point
	watchList bool         // the request asks for initial events
	wf        *watchFaults // the stream's fault state, for hooks

	// at a write point: the key written ("" when the request named none)
	key string

	// actor says the point is an actor's request (WithFaultsOnActors):
	// no fault that ends the target's process acts there
	actor bool

	// at a frame point
	ws    *watchStream
	frame outFrame // the frame about to be sent
	peek  peekFunc // the next event frame; nil where there is none
}

// resource is the resource whose point c is (its decision points are
// numbered on their own).
func (c *pointCtx) resource() history.Resource {
	switch {
	case c.l != nil:
		return c.l.Resource
	case c.ws != nil && c.ws.l != nil:
		return c.ws.l.Resource
	}
	return history.Resource{}
}

// listWatch reports whether the WATCH request gets initial events and an
// initial-events-end bookmark (kube-apiserver's isListWatchRequest).
func (c *pointCtx) listWatch() bool {
	return c.watchList && c.q.AllowWatchBookmarks
}

// resumes reports whether the WATCH request resumes from a
// resourceVersion rather than starting from the state.
func (c *pointCtx) resumes() bool {
	return !c.watchList && c.q.ResourceVersion != "" && c.q.ResourceVersion != "0"
}

// watchFrom names the resourceVersion a WATCH request starts from, for a
// firing's detail: `rv 140`, `rv ""`.
func (c *pointCtx) watchFrom() string {
	if c.q.ResourceVersion == "" {
		return fmt.Sprintf("rv %q", c.q.ResourceVersion)
	}
	return "rv " + c.q.ResourceVersion
}

// bookmark reports whether the frame about to be sent is a BOOKMARK.
func (c *pointCtx) bookmark() bool {
	return c.frame.typ == history.Bookmark
}

// frameRV names the resourceVersion of the frame about to be sent, for a
// firing's detail: "rv 140".
func (c *pointCtx) frameRV() string {
	return "rv " + c.frame.rv
}
