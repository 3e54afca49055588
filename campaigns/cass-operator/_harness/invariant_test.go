package cassharness

import (
	"encoding/json"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	api "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// ErrLiveClaimDeleted says the operator deleted a claim of a datacenter
// that was live, not being deleted.
var ErrLiveClaimDeleted = errors.New("the operator deleted a claim of a live CassandraDatacenter")

// liveClaimsKept is the user's promise from cass-operator: a datacenter's
// PersistentVolumeClaims are deleted only when it is deleted (its docs:
// "the PVCs are deleted when the CassandraDatacenter is deleted"; deletePVCs
// runs in ProcessDeletion only). Judged on the served history: for each
// claim the operator deleted, the datacenter its labels name
// (cassandra.datastax.com/datacenter, in its namespace) as it stood at
// that delete is absent or being deleted, or it was created after the
// claim (the claim is a predecessor's).
var liveClaimsKept = fuzz.NewInvariant("live-datacenter-claims-kept",
	"the operator deletes a CassandraDatacenter's PVCs only while that datacenter (created before the claim) is being deleted or gone",
	func(_ *history.Log, obs *fuzz.Observation) error {
		pl, ok := obs.Served.Log(pvcs)
		if !ok {
			return nil
		}
		dl, ok := obs.Served.Log(datacenters)
		if !ok {
			return nil
		}
		order := obs.Served.Order()
		if !order.Numeric() {
			return fmt.Errorf("%w: resourceVersions are opaque", oracle.ErrNotJudged)
		}
		created := map[string]string{} // claim UID -> the RV it was added at
		var errs []error
		for _, e := range pl.Events {
			if e.Type == history.Added {
				created[e.Object.UID] = e.RV()
			}
			if e.Type != history.Deleted || !e.ByTarget() {
				continue
			}
			claim := e.Object
			name, ok := claim.Labels[api.DatacenterLabel]
			if !ok {
				continue
			}
			dc, dcAdded, err := datacenterAt(dl, claim.Namespace+"/"+name, e.RV(), order)
			if err != nil {
				return err
			}
			if dc == nil {
				continue
			}
			var m struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			}
			if err := json.Unmarshal(dc.Raw, &m); err != nil {
				return fmt.Errorf("%s: %w", dc.Key(), err)
			}
			if m.Metadata.DeletionTimestamp != nil {
				continue
			}
			// A claim recorded in the initial state, or added before the
			// datacenter, is older than it: the datacenter's own claim.
			if at, ok := created[claim.UID]; ok && dcAdded != "" && order.Less(at, dcAdded) {
				continue
			}
			errs = append(errs, fmt.Errorf("%w: claim %s (uid %s) deleted at rv %s while datacenter %s (uid %s) is live", ErrLiveClaimDeleted, claim.Key(), claim.UID, e.RV(), dc.Key(), dc.UID))
		}
		return errors.Join(errs...)
	})

// datacenterAt is the datacenter at key as it stood just before rv, and
// the RV it was added at ("" when in the initial state); nil when absent.
func datacenterAt(l *history.Log, key, rv string, order *history.Order) (*history.Object, string, error) {
	var cur *history.Object
	added := ""
	for _, o := range l.Initial {
		if o.Key() == key {
			cur = o
		}
	}
	for _, e := range l.Events {
		if c, ok := order.Compare(e.RV(), rv); !ok {
			return nil, "", fmt.Errorf("%w: rv %s and %s not comparable", oracle.ErrNotJudged, e.RV(), rv)
		} else if c >= 0 {
			break
		}
		if e.Object.Key() != key {
			continue
		}
		switch e.Type {
		case history.Deleted:
			cur, added = nil, ""
		case history.Added:
			cur, added = e.Object, e.RV()
		default:
			cur = e.Object
		}
	}
	return cur, added, nil
}
