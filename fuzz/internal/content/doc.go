// Package content compares and counts what a run stored and wrote.
// The judge (fuzz/oracle), the harness and the report share it.
// SameContent compares one object with the truth's.
// StoreDiff lists how a store differs from the truth.
// WriteCounts and VerbCounts sum writes and requests for messages.
package content
