package faults

import "errors"

// Errors returned by this package wrap one of these sentinels; the wrapping
// message names the fault, parameter, plan entry or decision at fault.
var (
	// ErrUnknownFault means a name is not in Registry.
	ErrUnknownFault = errors.New("unknown fault")
	// ErrParam means a parameter is unknown to its fault, has a value that
	// is not a non-negative integer, or cannot be combined with another.
	ErrParam = errors.New("bad fault parameter")
	// ErrSyntax means a fault's text form is malformed.
	ErrSyntax = errors.New("bad fault syntax")
	// ErrPlanFile means a plan file is malformed or of an unsupported version.
	ErrPlanFile = errors.New("bad plan file")
	// ErrNotEncodable means a plan has no byte form. Causes: a decision at
	// every point (At -1), a where-parameter, a value Decode cannot choose,
	// or two decisions at one point.
	ErrNotEncodable = errors.New("plan not encodable")
)
