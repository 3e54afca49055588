package trustmanager

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// TestTargetsHoldBundle shows targets-hold-bundle holding on trust-manager's
// fault-free runs (every cassette, both client paths). It shows it firing on
// the same runs' end states broken by hand. A target ConfigMap's
// certificates are cut to one, and a selected namespace's target is deleted.
func TestTargetsHoldBundle(t *testing.T) {
	c, err := fuzz.NewCampaign(options(t))
	if err != nil {
		t.Fatal(err)
	}
	breaks := []struct {
		name string
		key  string
		edit func(cm *corev1.ConfigMap) (history.EventType, error)
		want error
	}{
		{name: "no change - pass", want: nil},
		{name: "a target holds one certificate of the bundle's - fail", key: "default/" + "corp-trust", want: ErrTargetOutOfSync,
			edit: func(cm *corev1.ConfigMap) (history.EventType, error) {
				for k, v := range cm.Data {
					certs := certSet(v)
					if len(certs) < 2 {
						return "", fmt.Errorf("%s key %s: got %d certificates, want 2 or more to cut", cm.Name, k, len(certs))
					}
					cm.Data[k] = v[:len(v)/len(certs)] // the first PEM block only
				}
				return history.Modified, nil
			}},
		{name: "a selected namespace's target deleted - fail", key: "team-c/team-trust", want: ErrTargetOutOfSync,
			edit: func(*corev1.ConfigMap) (history.EventType, error) { return history.Deleted, nil }},
	}
	for i, cas := range c.Cassettes() {
		for _, wl := range []bool{true, false} {
			out := c.CheckPlan(t, i, wl, faults.Plan{})
			obs := out.Observation
			if obs == nil {
				t.Fatalf("%s WatchList=%v: got no observation, want one", cas, wl)
			}
			for _, b := range breaks {
				t.Run(fmt.Sprintf("targets-hold-bundle - %s WatchList=%v, %s", cas, wl, b.name), func(t *testing.T) {
					o := *obs
					if b.edit != nil {
						h, err := withEdit(obs.Served, b.key, b.edit)
						if err != nil {
							t.Fatal(err)
						}
						o.Served = h
					}
					got := targetsHoldBundle.Check(&o)
					if !errors.Is(got, b.want) && !(got == nil && b.want == nil) {
						t.Errorf("got %v, want %v", got, b.want)
					}
				})
			}
		}
	}
}

// withEdit returns h with one more configmaps event: key's end state as
// edit changes it (Modified), or its delete.
func withEdit(h *history.History, key string, edit func(*corev1.ConfigMap) (history.EventType, error)) (*history.History, error) {
	out := *h
	out.Logs = append([]*history.Log(nil), h.Logs...)
	i := out.LogIndex(configMaps)
	if i < 0 {
		return nil, errors.New("no configmaps log served")
	}
	l := *out.Logs[i]
	prev, ok := l.ObjectAt(key, l.End())
	if !ok {
		return nil, fmt.Errorf("configmap %s: got none at the end, want the target", key)
	}
	var cm corev1.ConfigMap
	if err := json.Unmarshal(prev.Raw, &cm); err != nil {
		return nil, err
	}
	typ, err := edit(&cm)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(&cm)
	if err != nil {
		return nil, err
	}
	obj, _, _, err := history.ParseObject(raw)
	if err != nil {
		return nil, err
	}
	l.Events = append(append([]history.Event(nil), l.Events...), history.Event{Type: typ, Object: obj, Prev: prev})
	out.Logs[i] = &l
	return &out, nil
}
