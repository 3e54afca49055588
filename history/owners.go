package history

import (
	"bytes"
	"encoding/json"

	"github.com/lwreplay/lwreplay/internal/weakcache"
)

// ownersCache holds each object's owner UIDs. The replay's garbage
// collector asks for every watched object's after each write.
// Objects are shared by the runs of a campaign.
var ownersCache weakcache.Cache[Object, []string]

// Owners returns the UIDs of the owners o's metadata.ownerReferences
// name, in order (OwnerUIDs of its JSON). They are computed once while
// o lives. The slice is shared and must not be changed.
func (o *Object) Owners() []string {
	if o == nil {
		return nil
	}
	return ownersCache.Get(o, func(o *Object) []string { return OwnerUIDs(o.Raw) })
}

// OwnerUIDs returns the UIDs of the owners an object's JSON names in
// metadata.ownerReferences, in order. It returns nil when it names
// none, or is not an object's JSON.
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
