// Package oracle judges what a run saw: Observation is everything a run of
// a target observed (its deliveries, store, requests, panics, the truth
// the replay served: every resource's history with the target's writes,
// and its writes as the replay answered them), Invariant is a named
// property a correct target has, each quoting the client-go guarantee it
// guards, and Invariants are the built-in ones in report order. Judge checks an Observation under the one
// rule of scope (an EndState invariant is not judged on an unsettled run;
// a check may say ErrNotJudged). Signature names a finding apart from the
// plan that reached it (the broken invariants, what differed for those
// that say, and the site where the target went wrong), and Known matches
// the findings known already.
//
// It imports no part of the harness: the harness fills an Observation, the
// oracle reads it.
//
//	results := oracle.Judge(obs)            // every built-in invariant
//	err := oracle.Judge(obs, "converged")["converged"]
//	sig := oracle.SignatureOf(results)      // "converged @ example.com/ctrl.(*C).sync"
//
// A user invariant is NewInvariant's (fuzz.NewInvariant in a fuzz test).
package oracle
