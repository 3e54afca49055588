package eck

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	beatv1beta1 "github.com/elastic/cloud-on-k8s/v3/pkg/apis/beat/v1beta1"
	beatcommon "github.com/elastic/cloud-on-k8s/v3/pkg/controller/beat/common"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// ErrVehicle says a Beat's end state has not the one workload its spec
// asks for.
var ErrVehicle = errors.New("a beat's vehicle does not match its spec")

// vehicleMatchesSpec is the Beat controller's promise, judged on the run's
// end state as served. (ECK's docs, "Beat configuration": a Beat is
// deployed as the DaemonSet or Deployment its spec names, never both.)
// Every Beat has exactly one workload named <name>-beat-<type>, of the
// kind its spec asks. That Beat (its UID) controls it. It has the replicas
// a Deployment's spec asks. No workload of the other kind is left under
// that name.
var vehicleMatchesSpec = fuzz.NewInvariant("beat-vehicle-matches-spec",
	"every Beat ends with exactly one workload named <name>-beat-<type>, the DaemonSet or Deployment its spec asks (with its replicas), controlled by that Beat's UID, and none of the other kind",
	func(truth *history.Log, obs *fuzz.Observation) error {
		bl, ok := obs.Served.Log(beats)
		if !ok {
			bl = truth
		}
		state := func(r history.Resource) map[string]*history.Object {
			out := map[string]*history.Object{}
			if l, ok := obs.Served.Log(r); ok {
				for _, o := range l.StateAt(l.End()) {
					out[o.Key()] = o
				}
			}
			return out
		}
		deps, dss := state(deployments), state(daemonSets)
		var errs []error
		for _, o := range bl.StateAt(bl.End()) {
			var b beatv1beta1.Beat
			if err := json.Unmarshal(o.Raw, &b); err != nil {
				return fmt.Errorf("%s: %w", o.Key(), err)
			}
			if b.DeletionTimestamp != nil {
				continue
			}
			key := b.Namespace + "/" + beatcommon.Name(b.Name, b.Spec.Type)
			want, other, wantKind := deps, dss, "Deployment"
			if b.Spec.DaemonSet != nil {
				want, other, wantKind = dss, deps, "DaemonSet"
			}
			if _, ok := other[key]; ok {
				errs = append(errs, fmt.Errorf("%w: beat %s wants a %s, and a workload of the other kind %s is left", ErrVehicle, o.Key(), wantKind, key))
			}
			w, ok := want[key]
			if !ok {
				errs = append(errs, fmt.Errorf("%w: beat %s (uid %s) has no %s %s", ErrVehicle, o.Key(), b.UID, wantKind, key))
				continue
			}
			if err := checkVehicle(w, &b, wantKind); err != nil {
				errs = append(errs, fmt.Errorf("%w: beat %s: %s %s: %w", ErrVehicle, o.Key(), wantKind, key, err))
			}
		}
		sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
		return errors.Join(errs...)
	})

// checkVehicle says whether the workload w is controlled by b and, a
// Deployment, runs the replicas b's spec asks (1 when unset).
func checkVehicle(w *history.Object, b *beatv1beta1.Beat, kind string) error {
	var m struct {
		Metadata metav1.ObjectMeta     `json:"metadata"`
		Spec     appsv1.DeploymentSpec `json:"spec"`
	}
	if err := json.Unmarshal(w.Raw, &m); err != nil {
		return err
	}
	ref := metav1.GetControllerOf(&m.Metadata)
	if ref == nil || ref.UID != b.UID {
		got := "none"
		if ref != nil {
			got = string(ref.UID)
		}
		return fmt.Errorf("controller uid %s, want %s", got, b.UID)
	}
	if kind != "Deployment" {
		return nil
	}
	want := int32(1)
	if b.Spec.Deployment != nil && b.Spec.Deployment.Replicas != nil {
		want = *b.Spec.Deployment.Replicas
	}
	if m.Spec.Replicas == nil || *m.Spec.Replicas != want {
		got := "unset"
		if m.Spec.Replicas != nil {
			got = fmt.Sprint(*m.Spec.Replicas)
		}
		return fmt.Errorf("replicas %s, want %d", got, want)
	}
	return nil
}
