package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// A run can start some of the cluster's own controllers beside its target
// (package actor: kube-controller-manager's controllers, a kubelet
// stand-in). A recording made on a real cluster holds their past work:
// the pods a StatefulSet controller made, their status as the kubelet
// wrote it. Replayed as recorded, such an object would be both replayed
// and made anew by the running actor. Takeover hands those objects to the
// actors. Each keeps its initial state: what a LIST at its log's start
// returns. Its later recorded events are not served.

// GroupKind is an API group and a kind: "apps" and "StatefulSet".
type GroupKind struct {
	// Group is the API group; "" for the core group.
	Group string
	// Kind is the kind.
	Kind string
}

// String renders "StatefulSet.apps", or "Pod" for the core group.
func (g GroupKind) String() string {
	if g.Group == "" {
		return g.Kind
	}
	return g.Kind + "." + g.Group
}

// Take names recorded objects an actor makes and keeps itself: those of
// one resource whose controller (the ownerReference marked controller) is
// of one of ControllerKinds. It is package actor's Takeover in the
// history's terms.
type Take struct {
	// Group and Resource name the resource (every version of it): "" and
	// "pods".
	Group, Resource string
	// ControllerKinds are the kinds of the controllers whose objects the
	// actor makes; empty means every object of the resource.
	ControllerKinds []GroupKind
}

// String renders "pods controlled by StatefulSet.apps, Job.batch".
func (t Take) String() string {
	what := t.Resource
	if t.Group != "" {
		what += "." + t.Group
	}
	if len(t.ControllerKinds) == 0 {
		return "every " + what
	}
	kinds := make([]string, len(t.ControllerKinds))
	for i, k := range t.ControllerKinds {
		kinds[i] = k.String()
	}
	return what + " controlled by " + strings.Join(kinds, ", ")
}

// takes reports whether t takes o, an object of t's resource.
func (t Take) takes(o *Object) bool {
	if len(t.ControllerKinds) == 0 {
		return true
	}
	gk, ok := ControllerOf(o.Raw)
	return ok && slices.Contains(t.ControllerKinds, gk)
}

// Takeover returns a copy of h in which the recorded objects takes name
// are the actors'. Take an object of a take's resource that any of its
// recorded versions shows taken (initial, an event's, Log.Own's). It
// keeps its initial state, and every later recorded event of its key is
// dropped (Events and Own). So no object is both replayed and made. An
// object first recorded after its log's start is left out entirely. A key
// is taken as a whole: a pod the StatefulSet controller deleted and made
// again under its name is the actor's both times. Marks, resourceVersion
// orders and History.Writes stay as they were (a dropped event an echo
// named is simply gone). It returns h itself when no event is dropped,
// and an error for a take without a resource.
func Takeover(h *History, takes []Take) (*History, error) {
	for _, t := range takes {
		if t.Resource == "" {
			return nil, fmt.Errorf("%w: takeover %v: no resource", ErrRewrite, t)
		}
	}
	out := &History{Discovery: h.Discovery, Errors: h.Errors, Tables: h.Tables, Writes: h.Writes, Files: h.Files, Span: h.Span,
		order: h.order, orderErr: h.orderErr}
	changed := false
	for _, l := range h.Logs {
		taken := takenKeys(l, takes)
		if len(taken) == 0 {
			out.Logs = append(out.Logs, l)
			continue
		}
		events, own := untaken(l.Events, taken), untaken(l.Own, taken)
		if len(events) == len(l.Events) && len(own) == len(l.Own) {
			out.Logs = append(out.Logs, l)
			continue
		}
		changed = true
		nl := copyLog(l, l.order)
		nl.Events, nl.Own = events, own
		nl.finish()
		out.Logs = append(out.Logs, nl)
	}
	if !changed {
		return h, nil
	}
	return out, nil
}

// takenKeys returns the keys of l's objects takes takes.
func takenKeys(l *Log, takes []Take) map[string]bool {
	var mine []Take
	for _, t := range takes {
		if t.Group == l.Resource.Group && t.Resource == l.Resource.Resource {
			mine = append(mine, t)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	taken := map[string]bool{}
	see := func(o *Object) {
		if o == nil || taken[o.Key()] {
			return
		}
		if slices.ContainsFunc(mine, func(t Take) bool { return t.takes(o) }) {
			taken[o.Key()] = true
		}
	}
	for _, o := range l.Initial {
		see(o)
	}
	for _, e := range l.Events {
		see(e.Object)
	}
	for _, e := range l.Own {
		see(e.Object)
	}
	return taken
}

// untaken returns the events of evs whose keys are not taken, in order.
func untaken(evs []Event, taken map[string]bool) []Event {
	var out []Event
	for _, e := range evs {
		if !taken[e.Object.Key()] {
			out = append(out, e)
		}
	}
	return out
}

// ControllerOf returns the group and kind of the controller an object's
// JSON names: its metadata.ownerReferences entry marked controller. ok is
// false when it names none, or is not an object's JSON.
func ControllerOf(raw []byte) (gk GroupKind, ok bool) {
	if !bytes.Contains(raw, []byte(`"controller"`)) {
		return GroupKind{}, false
	}
	var m struct {
		Metadata struct {
			OwnerReferences []struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Controller *bool  `json:"controller"`
			} `json:"ownerReferences"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return GroupKind{}, false
	}
	for _, r := range m.Metadata.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			group, _, found := strings.Cut(r.APIVersion, "/")
			if !found {
				group = "" // "v1": the core group
			}
			return GroupKind{Group: group, Kind: r.Kind}, true
		}
	}
	return GroupKind{}, false
}
