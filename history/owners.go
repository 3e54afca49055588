package history

import (
	"bytes"
	"encoding/json"
)

// OwnerUIDs returns the UIDs of the owners an object's JSON names in
// metadata.ownerReferences, in order; nil when it names none (or is not
// an object's JSON).
func OwnerUIDs(raw []byte) []string {
	if !bytes.Contains(raw, []byte(`"ownerReferences"`)) {
		return nil
	}
	var m struct {
		Metadata struct {
			OwnerReferences []struct {
				UID string `json:"uid"`
			} `json:"ownerReferences"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out []string
	for _, r := range m.Metadata.OwnerReferences {
		out = append(out, r.UID)
	}
	return out
}
