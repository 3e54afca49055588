// Package level makes the clients a run's target reaches the replay with,
// at one of two levels:
//   - Wire sends every request through client-go's own REST client and
//     decoders over the in-process transport.
//   - Typed answers the same requests with the same bytes. But it keeps
//     each decoded LIST body and watch frame in a Cache shared by the runs
//     of one cassette. So a frame seen before costs a map lookup and a deep
//     copy, not a decode.
//
// Faults surface as the very errors either level gives.
//
//	c := level.Client{Config: cfg, Level: level.Typed, WatchList: true, Cache: level.NewCache()}
//	lw, err := c.ListerWatcher(res, &unstructured.Unstructured{}, false)
//	cs, err := c.Clientset() // for informers of a SharedInformerFactory
//
// It knows nothing of targets or invariants; the harness's Env hands a
// target these clients.
package level
