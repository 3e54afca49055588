package widgets

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/history"
)

// cassettes are the recordings of real widgets (e2e's TestRecordWidgets):
// WatchList, and LIST in pages of 2 then WATCH.
var cassettes = fuzz.Glob("testdata/widgets-*.yaml")

// widgets is the resource the runs watch: the manager's widget informer
// is the one the probe judges.
var widgets = history.Resource{Group: GroupVersion.Group, Version: GroupVersion.Version, Resource: Resource, Kind: "Widget", Namespaced: true}

// configMaps is the resource of the widgets' ConfigMaps.
var configMaps = history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// target runs the reconciler in a controller-runtime manager whose scheme
// knows Widget.
func target(t testing.TB, name string, opts ...Option) fuzz.Target {
	s, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	return crtarget.TargetWithOptions(name, "the widgets reconciler of examples/widgets", manager.Options{Scheme: s}, func(mgr manager.Manager) error {
		return New(mgr.GetClient(), mgr.GetAPIReader(), opts...).SetupWithManager(mgr, crtarget.ControllerOptions())
	})
}

// options are the options of the example's fuzz tests. They take the widget
// cassettes, and the plans of testdata/plans as seeds. They add the reconciler's
// own invariant and crtarget's beside the built-in ones (same-outcome among them).
// controller-runtime's known bugs are not its own.
func options(t fuzz.Target) fuzz.Options {
	plans := fuzz.Glob("testdata/plans/*.yaml")
	if os.Getenv("LWREPLAY_NO_PLAN_SEEDS") != "" { // bench/find-planted.sh: the fault-free seeds only
		plans = nil
	}
	return fuzz.Options{
		Cassettes: cassettes,
		Resource:  widgets,
		Target:    t,
		Extra:     append([]fuzz.Invariant{configMapOutlivesWidget}, crtarget.Invariants()...),
		Plans:     plans,
		Scenarios: true,
		Known:     crtarget.KnownFindings(),
	}
}

// ErrLiveWidgetConfigMap says a ConfigMap was deleted while the widget
// that controls it was neither deleting nor gone.
var ErrLiveWidgetConfigMap = errors.New("a live widget's configmap deleted")

// configMapOutlivesWidget is the reconciler's promise, judged on the
// served history's deletes by the reconciler (history.Event.ByTarget).
// Its cleanup deletes a ConfigMap controlled by a widget only once that
// widget (by UID) is deleting or gone. It never deletes one under a
// widget that still wants it. Another actor may delete one at any time
// (a recreate fault does, and the garbage collector once the widget is
// gone).
var configMapOutlivesWidget = fuzz.NewInvariant("configmap-outlives-widget",
	"a ConfigMap a widget controls is deleted by the reconciler only once that widget is deleting or gone (another actor's delete, a fault's recreate or the garbage collector's, is not the reconciler's)",
	func(truth *history.Log, obs *fuzz.Observation) error {
		cms, ok := obs.Served.Log(configMaps)
		if !ok {
			return nil
		}
		ws, ok := obs.Served.Log(widgets)
		if !ok {
			ws = truth
		}
		var errs []error
		for _, e := range cms.Events {
			if e.Type != history.Deleted || !e.ByTarget() {
				continue
			}
			for _, uid := range controllers(e.Object) {
				if w := widgetAt(ws, uid, e.RV()); w != nil && !deleting(w) {
					errs = append(errs, fmt.Errorf("%w: configmap %s deleted at rv %s while widget %s (uid %s) lives, not deleting", ErrLiveWidgetConfigMap, e.Object.Key(), e.RV(), w.Key(), uid))
				}
			}
		}
		return errors.Join(errs...)
	})

// widgetAt returns the widget of uid in ws's state at resourceVersion
// rv, every event of ws at or before rv applied. It returns nil when
// there is none.
func widgetAt(ws *history.Log, uid, rv string) *history.Object {
	at, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return nil
	}
	pos := 0
	for pos < ws.End() {
		n, err := strconv.ParseUint(ws.Events[pos].RV(), 10, 64)
		if err != nil || n > at {
			break
		}
		pos++
	}
	for _, o := range ws.StateAt(pos) {
		if o.UID == uid {
			return o
		}
	}
	return nil
}

// deleting reports whether o carries a deletionTimestamp.
func deleting(o *history.Object) bool {
	m, err := metaOf(o)
	return err == nil && m.DeletionTimestamp != nil
}

// controllers returns the UIDs of o's controlling owners.
func controllers(o *history.Object) []string {
	m, err := metaOf(o)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range m.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			out = append(out, string(r.UID))
		}
	}
	return out
}

// metaOf decodes o's metadata.
func metaOf(o *history.Object) (*metav1.ObjectMeta, error) {
	var v struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(o.Raw, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", o.Key(), err)
	}
	return &v.Metadata, nil
}
