package writes

import (
	"encoding/json"
	"fmt"
	"sort"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/lwreplay/lwreplay/internal/builtin"
)

// Rebase returns what another writer's recorded change of an object makes
// of cur. The change goes from before to after, two versions a recording
// holds. The object as it is now is cur; the target may have changed it
// since before. Rebase replays the recorded change as that writer's write
// onto cur. So the target's own changes of other fields survive.
//
// The change is the two-way patch from before to after, applied onto cur.
// For a built-in kind it is a strategic merge patch: lists merge by their
// keys, as kube-apiserver merges a strategic patch. For a custom resource
// it is a JSON merge patch. Where the target and the recorded writer
// changed the same field, the recorded writer, the later one, wins.
//
// metadata.managedFields are merged by manager. The recorded writer's
// entries replace, add or drop theirs; the others are cur's. They are kept
// in kube-apiserver's order: operation, time, manager, apiVersion,
// subresource (the field manager's sortEncodedManagedFields).
// metadata.generation is cur's, plus one when the recorded change bumped
// it. The resourceVersion is after's.
//
// The event is Modified, with two exceptions. It is None when the change
// makes no difference to cur: kube-apiserver stores no no-op update (no
// event, no resourceVersion). Unless the recorded writer applied, it is
// None too when the change makes no difference to cur's fields (bare's:
// resourceVersion, generation and managedFields aside). (An update's
// manager owns only the fields it changed: structured-merge-diff's
// Updater.Update. So one that changes none changes no managedFields. An
// apply owns what it applies, changed or not.) The event is Deleted when
// the change empties the finalizers of an object cur shows being deleted.
// The registry then deletes it (store.go deleteWithoutFinalizers).
func Rebase(k Kind, before, after, cur *unstructured.Unstructured) (*unstructured.Unstructured, Event, error) {
	from, to, onto := bare(before), bare(after), bare(cur)
	fromJS, err := json.Marshal(from.Object)
	if err != nil {
		return nil, None, err
	}
	toJS, err := json.Marshal(to.Object)
	if err != nil {
		return nil, None, err
	}
	ontoJS, err := json.Marshal(onto.Object)
	if err != nil {
		return nil, None, err
	}
	var merged []byte
	if ref, err := builtin.Scheme.New(gvk(k)); k.Builtin && err == nil {
		p, err := strategicpatch.CreateTwoWayMergePatch(fromJS, toJS, ref)
		if err != nil {
			return nil, None, fmt.Errorf("the recorded change as a strategic merge patch: %w", err)
		}
		if merged, err = strategicpatch.StrategicMergePatch(ontoJS, p, ref); err != nil {
			return nil, None, fmt.Errorf("the recorded change onto the object: %w", err)
		}
	} else {
		p, err := jsonpatch.CreateMergePatch(fromJS, toJS)
		if err != nil {
			return nil, None, fmt.Errorf("the recorded change as a merge patch: %w", err)
		}
		if merged, err = jsonpatch.MergePatch(ontoJS, p); err != nil {
			return nil, None, fmt.Errorf("the recorded change onto the object: %w", err)
		}
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(merged); err != nil {
		return nil, None, fmt.Errorf("the rebased object: %w", err)
	}
	out.SetManagedFields(mergeManagers(before.GetManagedFields(), after.GetManagedFields(), cur.GetManagedFields()))
	gen := cur.GetGeneration()
	if after.GetGeneration() > before.GetGeneration() {
		gen++
	}
	if gen != 0 {
		out.SetGeneration(gen)
	}
	out.SetResourceVersion(cur.GetResourceVersion())
	if equality.Semantic.DeepEqual(out.Object, cur.Object) ||
		(!recordedApply(before, after) && equality.Semantic.DeepEqual(bare(out).Object, bare(cur).Object)) {
		return cur, None, nil
	}
	out.SetResourceVersion(after.GetResourceVersion())
	if out.GetDeletionTimestamp() != nil && len(out.GetFinalizers()) == 0 {
		return out, Deleted, nil
	}
	return out, Modified, nil
}

// bare is a copy of u without what a recorded change of it must not carry
// onto another version: its resourceVersion, generation and managedFields.
// Rebase sets those by their own rules.
func bare(u *unstructured.Unstructured) *unstructured.Unstructured {
	c := u.DeepCopy()
	c.SetResourceVersion("")
	unstructured.RemoveNestedField(c.Object, "metadata", "generation")
	c.SetManagedFields(nil)
	return c
}

// mergeManagers is cur's managedFields with the recorded change from
// before to after applied entry by entry. An entry after holds that
// before did not, or holds changed, replaces or joins cur's of the same
// key. An entry before held that after dropped leaves cur too.
func mergeManagers(before, after, cur []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	was := map[string]metav1.ManagedFieldsEntry{}
	for _, e := range before {
		was[entryKey(e)] = e
	}
	now := map[string]metav1.ManagedFieldsEntry{}
	for _, e := range after {
		now[entryKey(e)] = e
	}
	out := make([]metav1.ManagedFieldsEntry, 0, len(cur)+len(after))
	seen := map[string]bool{}
	for _, e := range cur {
		k := entryKey(e)
		seen[k] = true
		n, kept := now[k]
		_, had := was[k]
		switch {
		case kept && !equality.Semantic.DeepEqual(n, was[k]):
			out = append(out, n)
		case had && !kept:
		default:
			out = append(out, e)
		}
	}
	for _, e := range after {
		k := entryKey(e)
		if b, had := was[k]; !seen[k] && (!had || !equality.Semantic.DeepEqual(b, e)) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil
	}
	sort.SliceStable(out, func(i, j int) bool { return managerLess(out[i], out[j]) })
	return out
}

// managerLess is kube-apiserver's order of managedFields entries: by
// operation, time in seconds, manager, apiVersion, subresource
// (k8s.io/apimachinery/pkg/util/managedfields/internal/managedfields.go
// sortEncodedManagedFields, run on every write it stores).
func managerLess(p, q metav1.ManagedFieldsEntry) bool {
	if p.Operation != q.Operation {
		return p.Operation < q.Operation
	}
	var ps, qs int64
	if p.Time != nil {
		ps = p.Time.Unix()
	}
	if q.Time != nil {
		qs = q.Time.Unix()
	}
	if ps != qs {
		return ps < qs
	}
	if p.Manager != q.Manager {
		return p.Manager < q.Manager
	}
	if p.APIVersion != q.APIVersion {
		return p.APIVersion < q.APIVersion
	}
	return p.Subresource < q.Subresource
}

// recordedApply reports whether the recorded change from before to after
// holds a server-side apply. That is an Apply entry of after's that before
// did not hold as it is.
func recordedApply(before, after *unstructured.Unstructured) bool {
	was := map[string]metav1.ManagedFieldsEntry{}
	for _, e := range before.GetManagedFields() {
		was[entryKey(e)] = e
	}
	for _, e := range after.GetManagedFields() {
		if b, had := was[entryKey(e)]; e.Operation == metav1.ManagedFieldsOperationApply && (!had || !equality.Semantic.DeepEqual(b, e)) {
			return true
		}
	}
	return false
}
