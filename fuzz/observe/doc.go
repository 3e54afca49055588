// Package observe is the run record: what one run of a target saw.
//
// The harness writes an Observation; the oracle reads it. It holds the
// target's deliveries, store, requests and listings. It holds the replay's
// servings, the target's writes as the replay answered them, and the
// plan's firings. It says how the run ended: a hot loop, a spin, a bound.
// It imports only history and faults, so the harness, the oracle and
// timeline can share it.
//
// It judges nothing. The reference runs' outcome that same-outcome compares
// a run with is the judge's argument, not part of the record.
package observe
