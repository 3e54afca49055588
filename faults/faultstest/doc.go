// Package faultstest holds the acceptance tests of lwreplay's fault plans:
// real client-go shared informers run against the replayer under a plan, on a
// recorded cassette. For every legal fault of faults.Registry the informer
// must end with exactly the state the server served (Server.Served); for
// every breaking fault a scenario shows the informer diverging from it, or,
// where client-go recovers, what it did instead. Every scenario checks that
// its fault fired.
package faultstest
