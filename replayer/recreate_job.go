package replayer

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/lwreplay/lwreplay/history"
)

// The labels kube-apiserver's Job strategy puts in a Job's selector and
// pod template from its UID (pkg/registry/batch/job/strategy.go,
// generateSelector).
var jobUIDLabels = []string{"controller-uid", "batch.kubernetes.io/controller-uid"}

// withUIDOf returns obj of res as an object of uid. It is obj with that
// UID, and for a Job without spec.manualSelector, the selector and pod
// template labels kube-apiserver generates from the new UID. Validation
// refuses a Job whose generated labels name another UID
// (pkg/apis/batch/validation/validation.go, validateGeneratedSelector).
// So a Job created again under its name never carries its predecessor's.
// With created (the create itself), a Job's status is empty too: the
// strategy's PrepareForCreate resets it, so a Job made again runs again.
func withUIDOf(res history.Resource, obj *history.Object, uid string, created bool) (*history.Object, error) {
	born, err := history.WithUID(obj, uid)
	if err != nil || res.Group != "batch" || res.Resource != "jobs" {
		return born, err
	}
	var j map[string]any
	d := json.NewDecoder(bytes.NewReader(born.Raw))
	d.UseNumber() // integers stay as written
	if err := d.Decode(&j); err != nil {
		return nil, fmt.Errorf("job %s: %v", obj.Key(), err)
	}
	changed := false
	if _, ok := j["status"]; ok && created {
		delete(j, "status")
		changed = true
	}
	spec, _ := j["spec"].(map[string]any)
	if spec == nil || spec["manualSelector"] == true {
		spec = nil // a manual selector is the user's: kept
	}
	relabel := func(labels map[string]any) {
		for _, l := range jobUIDLabels {
			if v, ok := labels[l].(string); ok && v == obj.UID {
				labels[l], changed = uid, true
			}
		}
	}
	if spec == nil {
		return reparsed(obj, j, changed, born)
	}
	if sel, _ := spec["selector"].(map[string]any); sel != nil {
		if ml, _ := sel["matchLabels"].(map[string]any); ml != nil {
			relabel(ml)
		}
	}
	if tpl, _ := spec["template"].(map[string]any); tpl != nil {
		if md, _ := tpl["metadata"].(map[string]any); md != nil {
			if ls, _ := md["labels"].(map[string]any); ls != nil {
				relabel(ls)
			}
		}
	}
	return reparsed(obj, j, changed, born)
}

// reparsed is j as an object when changed, else born.
func reparsed(obj *history.Object, j map[string]any, changed bool, born *history.Object) (*history.Object, error) {
	if !changed {
		return born, nil
	}
	raw, err := json.Marshal(j)
	if err != nil {
		return nil, fmt.Errorf("job %s: %v", obj.Key(), err)
	}
	out, _, _, err := history.ParseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("job %s: %v", obj.Key(), err)
	}
	return out, nil
}
