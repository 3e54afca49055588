// Package oracle judges what a run saw. It reads the run record
// (observe.Observation) and never runs a target.
//
// Invariant is a named property a correct target has, each quoting the
// client-go guarantee it guards. Invariants are the built-in ones, in
// report order. Judge checks an Observation under the one rule of scope.
// An EndState invariant is not judged on an unsettled run, and a check may
// say ErrNotJudged. JudgeAgainst also gives same-outcome its Reference.
// That is the fault-free reference runs' FinalState and the masks learned
// from them.
//
// Signature names a finding apart from the plan that reached it. It holds
// the broken invariants, what differed for those that say, and the site
// where the target went wrong. Known matches the findings known already.
//
//	results := oracle.Judge(obs)            // every built-in invariant
//	err := oracle.Judge(obs, "converged")["converged"]
//	sig := oracle.SignatureOf(results)      // "converged @ example.com/ctrl.(*C).sync"
//
// A user invariant is NewInvariant's (fuzz.NewInvariant in a fuzz test).
package oracle
