// Package faultstest holds the acceptance tests of lwreplay's fault plans:
// real client-go shared informers run against the replayer under a plan, on a
// recorded cassette. For every legal fault of faults.Registry, the informer
// must end with exactly the state the server served (Server.Served). For
// every breaking fault, a scenario shows the informer diverging from it.
// Where client-go recovers, it shows what client-go did instead. Every
// scenario checks that its fault fired.
package faultstest
