// Package storm defines a request storm, and the one counter that finds
// it. A storm is more than Limit requests for one resource within Window,
// none of which gained the client anything. The replayer's server-side
// warning (replayer.WithStormDetection) and the fuzz oracle's
// no-request-storm invariant both count with it.
//
//	c := storm.NewCounter[string](storm.Window, storm.Limit)
//	for each request:  if c.Add(at, what) { storming: c.Held() are the requests }
//	on progress:       c.Reset()
package storm

import "time"

// Window and Limit define a storm: more than Limit requests within Window
// that gained nothing.
//
// Why these numbers. A client-go Reflector that fails backs off before it
// lists again. It waits 0.8 s, doubling (with up to as much again of
// jitter) to a cap of 30 s. So within 10 s it starts at most four cycles:
// at 0, ≥0.8, ≥2.4 and ≥5.6 s; the next is ≥12 s. Each has at most three
// requests (a WatchList, the LIST it falls back to, a WATCH): 12. Its REST
// client retries a request answered with Retry-After at most 10 times, a
// second or more apart: 11 requests in 10 s. Both at once stay under 30. A
// client whose requests are rate-limited (client-go's default: 5 per
// second, bursts of 10) still makes up to 60 in 10 s when it loops. So a
// loop with no backoff is caught however it is throttled. A healthy client
// makes about one request per watch timeout (5 to 10 min).
const (
	Window = 10 * time.Second
	Limit  = 30
)

// Counter counts one resource's requests since it last made progress and
// says when they storm. It holds the last limit+1 of them in a ring, which
// grows as requests come (most counters count a few). A storm is when the
// oldest of them was sent less than a window before the newest. So each
// request costs O(1). It is not safe for concurrent use.
type Counter[T any] struct {
	window time.Duration
	limit  int
	ring   []entry[T] // up to limit+1 entries; at most at past its end
	n, at  int        // entries held; where the next one goes
}

type entry[T any] struct {
	at time.Time
	v  T
}

// NewCounter returns a counter of storms of more than limit requests
// within window (zero values: Limit and Window).
func NewCounter[T any](window time.Duration, limit int) *Counter[T] {
	if window <= 0 {
		window = Window
	}
	if limit <= 0 {
		limit = Limit
	}
	return &Counter[T]{window: window, limit: limit}
}

// Window returns the counter's window.
func (c *Counter[T]) Window() time.Duration { return c.window }

// Limit returns the counter's limit.
func (c *Counter[T]) Limit() int { return c.limit }

// Reset forgets the requests counted: the client made progress.
func (c *Counter[T]) Reset() { c.n, c.at = 0, 0 }

// Add counts a request sent at at, described by v. It reports whether the
// requests counted since the last Reset storm: more than the limit of them
// within the window.
func (c *Counter[T]) Add(at time.Time, v T) bool {
	size := c.size()
	if c.at == len(c.ring) { // not full yet: the ring grows
		c.ring = append(c.ring, entry[T]{at: at, v: v})
	} else {
		c.ring[c.at] = entry[T]{at: at, v: v}
	}
	c.at = (c.at + 1) % size
	c.n = min(c.n+1, size)
	return c.n == size && at.Sub(c.ring[c.at].at) < c.window // the slot written next holds the oldest once full
}

// size is the number of requests the ring holds once full.
func (c *Counter[T]) size() int { return c.limit + 1 }

// Oldest returns when the oldest request held was sent (zero when none is).
func (c *Counter[T]) Oldest() time.Time {
	if c.n == 0 {
		return time.Time{}
	}
	return c.ring[(c.at-c.n+c.size())%c.size()].at
}

// Held returns the requests held, oldest first: once Add reports a storm,
// the limit+1 requests that make it.
func (c *Counter[T]) Held() []T {
	out := make([]T, 0, c.n)
	for k := c.n; k > 0; k-- {
		out = append(out, c.ring[(c.at-k+c.size())%c.size()].v)
	}
	return out
}
