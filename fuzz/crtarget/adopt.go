package crtarget

import (
	"reflect"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// adoptLogs makes a controller whose LogConstructor logs past the
// manager's logger tell rec and starts what it logs, as the manager's own
// controllers do. KubeRay's builds its loggers on controller-runtime's
// global log.Log: without this, a run saw none of its reconciles end, nor
// its sources start. It returns the controller's name, and false when r is
// no such controller.
//
// controller-runtime's controller.New adds the controller itself, a
// pkg/internal/controller Controller[reconcile.Request], whose Name and
// LogConstructor fields are exported (v0.23 to v0.25). Every line it logs
// for itself comes from LogConstructor: "Starting EventSource" from
// LogConstructor(nil), a reconcile's end from LogConstructor(&req).
func adoptLogs(r manager.Runnable, rec *Reconciles, starts *controllerStarts) (string, bool) {
	c, ok := r.(interface{ GetLogger() logr.Logger })
	if !ok {
		return "", false
	}
	if _, ours := c.GetLogger().GetSink().(*reconcileSink); ours {
		return "", false
	}
	v := reflect.ValueOf(r)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return "", false
	}
	name, lc := v.Elem().FieldByName("Name"), v.Elem().FieldByName("LogConstructor")
	if name.Kind() != reflect.String || !lc.IsValid() || !lc.CanSet() || lc.IsNil() {
		return "", false
	}
	own, ok := lc.Interface().(func(*reconcile.Request) logr.Logger)
	if !ok {
		return "", false
	}
	sink := &reconcileSink{rec: rec, starts: starts, values: []any{"controller", name.String()}}
	lc.Set(reflect.ValueOf(func(req *reconcile.Request) logr.Logger {
		var ours logr.LogSink = sink
		if req != nil {
			ours = sink.WithValues("namespace", req.Namespace, "name", req.Name)
		}
		return logr.New(&teeSink{own: own(req).GetSink(), ours: ours})
	}))
	return name.String(), true
}

// teeSink logs each line to the controller's own sink (nil: none) and to
// the run's reconcileSink.
type teeSink struct {
	own, ours logr.LogSink
}

// Init initialises the run's sink; the controller's own was initialised
// by its logger, and is called one frame deeper from here.
func (t *teeSink) Init(info logr.RuntimeInfo) {
	t.ours.Init(info)
	if d, ok := t.own.(logr.CallDepthLogSink); ok {
		t.own = d.WithCallDepth(1)
	}
}

// Enabled is true where either sink is.
func (t *teeSink) Enabled(level int) bool {
	return t.ours.Enabled(level) || t.own != nil && t.own.Enabled(level)
}

// Info logs the line to each sink enabled at level.
func (t *teeSink) Info(level int, msg string, kv ...any) {
	if t.ours.Enabled(level) {
		t.ours.Info(level, msg, kv...)
	}
	if t.own != nil && t.own.Enabled(level) {
		t.own.Info(level, msg, kv...)
	}
}

// Error logs the line to both sinks.
func (t *teeSink) Error(err error, msg string, kv ...any) {
	t.ours.Error(err, msg, kv...)
	if t.own != nil {
		t.own.Error(err, msg, kv...)
	}
}

// WithValues returns the tee of both sinks with kv added.
func (t *teeSink) WithValues(kv ...any) logr.LogSink {
	out := &teeSink{ours: t.ours.WithValues(kv...)}
	if t.own != nil {
		out.own = t.own.WithValues(kv...)
	}
	return out
}

// WithName returns the tee of both sinks with name added.
func (t *teeSink) WithName(name string) logr.LogSink {
	out := &teeSink{ours: t.ours.WithName(name)}
	if t.own != nil {
		out.own = t.own.WithName(name)
	}
	return out
}
