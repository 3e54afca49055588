package es

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	esv1 "github.com/elastic/cloud-on-k8s/v3/pkg/apis/elasticsearch/v1"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// ErrScaledBelowCount says a nodeSet's StatefulSet was scaled below, or
// one of its pods deleted under, the count its user last set.
var ErrScaledBelowCount = errors.New("a nodeSet lost nodes its count still asks for")

// The labels ECK puts on an Elasticsearch's pods
// (pkg/controller/elasticsearch/label).
const (
	clusterNameLabel = "elasticsearch.k8s.elastic.co/cluster-name"
	ssetNameLabel    = "elasticsearch.k8s.elastic.co/statefulset-name"
)

// noScaleBelowCount is the user's promise of elastic/cloud-on-k8s#5274,
// judged over the whole served history in resourceVersion order. ECK's
// API: a nodeSet's count is the "Count of Elasticsearch nodes to deploy"
// (pkg/apis/elasticsearch/v1/elasticsearch_types.go:382). Its driver
// downscales a StatefulSet only when "the StatefulSet should be
// downscaled": its expected replicas, the count, are below its actual
// ones (driver/stateful/downscale.go:136-137). So a write that lowers a
// nodeSet's StatefulSet replicas never lowers them below the count the
// Elasticsearch holds then. No pod of a nodeSet whose ordinal is below
// that count is deleted. (A StatefulSet lagging behind a raised count is
// an upscale in progress, not judged.)
var noScaleBelowCount = fuzz.NewInvariant("es-no-scale-below-count",
	"a nodeSet's StatefulSet is never scaled below, and none of its pods deleted under, the count the user last set on its Elasticsearch",
	func(truth *history.Log, obs *fuzz.Observation) error {
		esLog, ok := obs.Served.Log(elasticsearches)
		if !ok {
			esLog = truth
		}
		type step struct {
			rv  string
			res string
			ev  history.Event
		}
		var steps []step
		for _, l := range []*history.Log{esLog} {
			for _, o := range l.Initial {
				steps = append(steps, step{rv: l.StartRV, res: "es", ev: history.Event{Type: history.Added, Object: o}})
			}
			for _, e := range l.Events {
				steps = append(steps, step{rv: e.RV(), res: "es", ev: e})
			}
		}
		for _, r := range []history.Resource{statefulSets, pods} {
			l, ok := obs.Served.Log(r)
			if !ok {
				continue
			}
			for _, o := range l.Initial {
				steps = append(steps, step{rv: l.StartRV, res: r.Resource, ev: history.Event{Type: history.Added, Object: o}})
			}
			for _, e := range l.Events {
				steps = append(steps, step{rv: e.RV(), res: r.Resource, ev: e})
			}
		}
		order := obs.Served.Order()
		sort.SliceStable(steps, func(i, j int) bool { return order.Less(steps[i].rv, steps[j].rv) })
		counts := map[string]int32{} // namespace/statefulset name → the count of its nodeSet
		var errs []error
		for _, s := range steps {
			switch s.res {
			case "es":
				if err := nodeSetCounts(s.ev, counts); err != nil {
					return err
				}
			case statefulSets.Resource:
				if err := checkReplicas(s.ev, counts); err != nil {
					errs = append(errs, err)
				}
			case pods.Resource:
				if err := checkPodDeletion(s.ev, counts); err != nil {
					errs = append(errs, err)
				}
			}
		}
		return errors.Join(errs...)
	})

// nodeSetCounts records in counts the count of each nodeSet of the
// Elasticsearch ev changed, keyed by its StatefulSet, or forgets them
// when it is deleted.
func nodeSetCounts(ev history.Event, counts map[string]int32) error {
	var es esv1.Elasticsearch
	if err := json.Unmarshal(ev.Object.Raw, &es); err != nil {
		return fmt.Errorf("elasticsearch %s: %w", ev.Object.Key(), err)
	}
	for _, ns := range es.Spec.NodeSets {
		key := es.Namespace + "/" + esv1.StatefulSet(es.Name, ns.Name)
		if ev.Type == history.Deleted || es.DeletionTimestamp != nil {
			delete(counts, key)
			continue
		}
		counts[key] = ns.Count
	}
	return nil
}

// checkReplicas says whether ev lowered a nodeSet's StatefulSet's
// replicas below its count.
func checkReplicas(ev history.Event, counts map[string]int32) error {
	want, ok := counts[ev.Object.Key()]
	if !ok || ev.Type != history.Modified || ev.Prev == nil {
		return nil
	}
	before, after := replicas(ev.Prev), replicas(ev.Object)
	if after < before && after < want {
		return fmt.Errorf("%w: statefulset %s scaled from %d to %d replicas at rv %s, its nodeSet's count %d", ErrScaledBelowCount, ev.Object.Key(), before, after, ev.RV(), want)
	}
	return nil
}

// checkPodDeletion says whether ev deleted, or marked for deletion, a
// nodeSet's pod whose ordinal its count still asks for.
func checkPodDeletion(ev history.Event, counts map[string]int32) error {
	sset, ok := ev.Object.Labels[ssetNameLabel]
	if !ok || ev.Object.Labels[clusterNameLabel] == "" {
		return nil
	}
	want, ok := counts[ev.Object.Namespace+"/"+sset]
	if !ok {
		return nil
	}
	// A deletion is judged when it is asked: the deletionTimestamp set
	// (the kubelet removes the pod once its grace period has passed), or
	// a deletion with no grace period.
	asked := ev.Type == history.Deleted && !marked(ev.Object)
	if ev.Type == history.Modified && ev.Prev != nil && !marked(ev.Prev) && marked(ev.Object) {
		asked = true
	}
	if !asked {
		return nil
	}
	ordinal, err := strconv.Atoi(ev.Object.Name[strings.LastIndex(ev.Object.Name, "-")+1:])
	if err != nil || int32(ordinal) >= want {
		return nil
	}
	return fmt.Errorf("%w: pod %s (ordinal %d) deleted at rv %s, its nodeSet's count %d", ErrScaledBelowCount, ev.Object.Key(), ordinal, ev.RV(), want)
}

// replicas is a StatefulSet's spec.replicas (1 when unset).
func replicas(o *history.Object) int32 {
	var s struct {
		Spec struct {
			Replicas *int32 `json:"replicas"`
		} `json:"spec"`
	}
	if json.Unmarshal(o.Raw, &s) != nil || s.Spec.Replicas == nil {
		return 1
	}
	return *s.Spec.Replicas
}

// marked says whether an object has a deletionTimestamp.
func marked(o *history.Object) bool {
	var m struct {
		Metadata struct {
			DeletionTimestamp *string `json:"deletionTimestamp"`
		} `json:"metadata"`
	}
	return json.Unmarshal(o.Raw, &m) == nil && m.Metadata.DeletionTimestamp != nil
}
