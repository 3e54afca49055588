package crtarget

import (
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// reconcileSink is a manager's log sink that tells a Reconciles how each
// reconcile ended, from the lines controller-runtime logs for it. It
// passes every line its base sink enables on to it.
type reconcileSink struct {
	base   logr.LogSink // nil: log nothing
	rec    *Reconciles
	starts *controllerStarts
	values []any // the key/values given to WithValues so far
}

// The messages controller-runtime's reconcileHandler ends a reconcile with.
const (
	msgReconcileError = "Reconciler error"
	msgSuccessful     = "Reconcile successful"
	msgRequeueing     = "Reconcile done, requeueing" // also "..., requeueing after <duration>"
	// What a controller logs as it starts: "Starting EventSource" for each
	// source, as it starts it (which makes the source's informer), then
	// "Starting Controller" once all synced.
	msgStartingSource     = "Starting EventSource"
	msgStartingController = "Starting Controller"
)

// reconcileLogger returns base logging through a reconcileSink that tells
// rec, and starts of controllers that started their sources. base is
// controller-runtime's log.Log when it has no sink, as the manager
// defaults it.
func reconcileLogger(base logr.Logger, rec *Reconciles, starts *controllerStarts) logr.Logger {
	if base.GetSink() == nil {
		base = ctrllog.Log
	}
	return logr.New(&reconcileSink{base: base.GetSink(), rec: rec, starts: starts})
}

// Init initialises the base sink, one call deeper.
func (s *reconcileSink) Init(info logr.RuntimeInfo) {
	if s.base != nil {
		info.CallDepth++
		s.base.Init(info)
	}
}

// reconcileEndLevel is the V level controller-runtime logs a reconcile's
// success at.
const reconcileEndLevel = 5

// Enabled is true at the levels of the lines the sink reads (0, and 5: a
// reconcile's success), and at those the base sink enables. At no other:
// a line enabled is a line made, and client-go makes costly ones at V(8)
// (request and response bodies).
func (s *reconcileSink) Enabled(level int) bool {
	return level <= 0 || level == reconcileEndLevel || s.base != nil && s.base.Enabled(level)
}

// Info records a successful reconcile, and logs the line if the base
// sink is enabled at level.
func (s *reconcileSink) Info(level int, msg string, kv ...any) {
	switch {
	case msg == msgSuccessful || strings.HasPrefix(msg, msgRequeueing):
		s.recordEnd(nil, kv)
	case msg == msgStartingSource || msg == msgStartingController:
		if name, ok := s.controller(); ok {
			s.starts.started(name)
		}
	}
	if s.base != nil && s.base.Enabled(level) {
		s.base.Info(level, msg, kv...)
	}
}

// Error records a failed reconcile, and logs the line.
func (s *reconcileSink) Error(err error, msg string, kv ...any) {
	if msg == msgReconcileError {
		if err == nil {
			err = fmt.Errorf("%s with no error", msgReconcileError)
		}
		s.recordEnd(err, kv)
	}
	if s.base != nil {
		s.base.Error(err, msg, kv...)
	}
}

// WithValues returns the sink with kv added.
func (s *reconcileSink) WithValues(kv ...any) logr.LogSink {
	out := &reconcileSink{rec: s.rec, starts: s.starts, values: append(append([]any(nil), s.values...), kv...)}
	if s.base != nil {
		out.base = s.base.WithValues(kv...)
	}
	return out
}

// WithName returns the sink with name added.
func (s *reconcileSink) WithName(name string) logr.LogSink {
	out := &reconcileSink{rec: s.rec, starts: s.starts, values: s.values}
	if s.base != nil {
		out.base = s.base.WithName(name)
	}
	return out
}

// recordEnd tells the record how a reconcile ended. Its controller and
// request are named by the sink's values and kv: "controller", and
// "namespace" and "name", as both the builder's and controller.New's
// loggers give them. A line without them is no reconcile's.
func (s *reconcileSink) recordEnd(err error, kv []any) {
	var controller, namespace, name string
	var haveController, haveName bool
	for _, list := range [][]any{s.values, kv} {
		for i := 0; i+1 < len(list); i += 2 {
			k, _ := list[i].(string)
			v, ok := list[i+1].(string)
			if !ok {
				continue
			}
			switch k {
			case "controller":
				controller, haveController = v, true
			case "namespace":
				namespace = v
			case "name":
				name, haveName = v, true
			}
		}
	}
	if !haveController || !haveName {
		return
	}
	key := name
	if namespace != "" {
		key = namespace + "/" + name
	}
	s.rec.record(controller, key, err)
}

// controller returns the "controller" value given to WithValues.
func (s *reconcileSink) controller() (string, bool) {
	for i := 0; i+1 < len(s.values); i += 2 {
		if k, _ := s.values[i].(string); k == "controller" {
			v, ok := s.values[i+1].(string)
			return v, ok
		}
	}
	return "", false
}
