package synth_test

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// decode unmarshals an object's JSON into v.
func decode(t *testing.T, o *history.Object, v any) {
	t.Helper()
	if err := json.Unmarshal(o.Raw, v); err != nil {
		t.Fatalf("%s: got error %v, want a typed object", o.Key(), err)
	}
}

// checkConfigMap checks a generated configmap looks like one.
func checkConfigMap(t *testing.T, o *history.Object) {
	t.Helper()
	var cm corev1.ConfigMap
	decode(t, o, &cm)
	switch {
	case cm.Labels["app"] == "" || cm.Labels["tier"] == "":
		t.Errorf("%s: got labels %v, want app and tier", o.Key(), cm.Labels)
	case len(cm.Data) == 0:
		t.Errorf("%s: got no data, want some keys", o.Key())
	case len(o.Raw) > 4096:
		t.Errorf("%s: got %d bytes, want a few KB at most", o.Key(), len(o.Raw))
	case cm.UID == "" || cm.CreationTimestamp.IsZero():
		t.Errorf("%s: got uid %q, created %v, want both set", o.Key(), cm.UID, cm.CreationTimestamp)
	}
}

// checkPod checks a generated pod looks like one.
func checkPod(t *testing.T, o *history.Object) {
	t.Helper()
	var p corev1.Pod
	decode(t, o, &p)
	c := p.Spec.Containers
	switch {
	case p.Labels["app"] == "" || p.Labels["tier"] == "" || p.Labels["pod-template-hash"] == "":
		t.Errorf("%s: got labels %v, want app, tier and pod-template-hash", o.Key(), p.Labels)
	case len(c) == 0 || c[0].Image == "" || c[0].Resources.Requests.Cpu().IsZero() || c[0].Resources.Requests.Memory().IsZero():
		t.Errorf("%s: got containers %+v, want an image and resource requests", o.Key(), c)
	case len(p.OwnerReferences) != 1 || p.OwnerReferences[0].Kind != "ReplicaSet" || p.OwnerReferences[0].Controller == nil || !*p.OwnerReferences[0].Controller:
		t.Errorf("%s: got owners %+v, want a controlling ReplicaSet", o.Key(), p.OwnerReferences)
	case !strings.HasPrefix(p.Name, p.OwnerReferences[0].Name+"-"):
		t.Errorf("%s: got owner %s, want the pod named after it", o.Key(), p.OwnerReferences[0].Name)
	case p.Status.Phase != corev1.PodPending && p.Status.Phase != corev1.PodRunning:
		t.Errorf("%s: got phase %q, want Pending or Running", o.Key(), p.Status.Phase)
	case p.Status.Phase == corev1.PodRunning && (p.Status.PodIP == "" || p.Spec.NodeName == "" || len(p.Status.ContainerStatuses) != len(c)):
		t.Errorf("%s: running with IP %q on %q, %d statuses, want an IP, a node and one status per container", o.Key(), p.Status.PodIP, p.Spec.NodeName, len(p.Status.ContainerStatuses))
	case p.Status.Phase == corev1.PodRunning && len(p.Status.Conditions) != 4:
		t.Errorf("%s: running with conditions %+v, want PodScheduled, Initialized, ContainersReady, Ready", o.Key(), p.Status.Conditions)
	}
}

func TestGenerate_Realism(t *testing.T) {
	t.Parallel()
	h := generated(t, synth.GenerateOptions{Objects: 40, Events: 400, Seed: 11})
	counts := map[string]int{}
	for _, l := range h.Logs {
		check := checkConfigMap
		if l.Resource.Kind == "Pod" {
			check = checkPod
		}
		uids := map[string]bool{}
		for _, o := range l.Initial {
			check(t, o)
			if uids[o.UID] {
				t.Errorf("%s: got UID %s twice, want unique UIDs", o.Key(), o.UID)
			}
			uids[o.UID] = true
		}
		for i, e := range l.Events {
			check(t, e.Object)
			counts[l.Resource.Kind+" "+string(e.Type)]++
			switch {
			case e.Type == history.Added && e.Prev != nil:
				t.Errorf("%s: event %d: ADDED over an existing object", l.Resource, i)
			case e.Type == history.Modified && e.Object.UID != e.Prev.UID:
				t.Errorf("%s: event %d: MODIFIED changed UID %s to %s", l.Resource, i, e.Prev.UID, e.Object.UID)
			case e.Type == history.Added && i > 0 && l.Events[i-1].Type == history.Deleted && l.Events[i-1].Object.Key() == e.Object.Key():
				counts["recreated"]++
				if l.Events[i-1].Object.UID == e.Object.UID {
					t.Errorf("%s: event %d: re-created %s with the same UID", l.Resource, i, e.Object.Key())
				}
			case e.Type == history.Deleted && l.Resource.Kind == "Pod" && e.Prev != nil && strings.Contains(string(e.Prev.Raw), `"deletionTimestamp"`):
				counts["graceful pod delete"]++
			case e.Type == history.Modified && l.Resource.Kind == "Pod" && podPhase(t, e.Object) != podPhase(t, e.Prev):
				counts["pod phase change"]++
			}
		}
	}
	for _, want := range []string{"ConfigMap ADDED", "ConfigMap MODIFIED", "ConfigMap DELETED", "Pod ADDED", "Pod MODIFIED", "Pod DELETED",
		"recreated", "graceful pod delete", "pod phase change"} {
		if counts[want] == 0 {
			t.Errorf("%s: got none in %v, want some", want, counts)
		}
	}
}

func podPhase(t *testing.T, o *history.Object) corev1.PodPhase {
	var p corev1.Pod
	decode(t, o, &p)
	return p.Status.Phase
}
