package trustmanager

import (
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
)

// CleanupRecreates names trust-manager's own known finding: the cleanup of
// a target its Bundle no longer selects creates the target again when the
// target cache still shows it, then deletes it, in a loop (docs/bugs-found.md).
const CleanupRecreates = "trust-manager: cleanup recreates a deselected target"

// cleanupTarget is the function whose writes loop: target.CleanupTarget
// deletes (the storm's last write is a delete), patchConfigMap applies (a
// create).
const cleanupTarget = "github.com/cert-manager/trust-manager/pkg/bundle/internal/target.(*Reconciler)."

// KnownFindings are the known findings of a trust-manager run: those of its
// controller-runtime (crtarget.KnownFindings) and trust-manager's own
// CleanupRecreates, at either of its writes' sites.
func KnownFindings() []fuzz.Known {
	doc := "pkg/bundle/internal/target.CleanupTarget server-side applies a target ConfigMap the Bundle no longer selects (creating it when it is gone) and deletes it when empty; while the target cache still shows the one it just deleted, the owner handler's next reconcile does it again"
	out := crtarget.KnownFindings()
	for _, fn := range []string{"CleanupTarget", "patchConfigMap"} {
		out = append(out, fuzz.Known{Name: CleanupRecreates, Doc: doc, Site: cleanupTarget + fn,
			Invariants: []string{"no-write-storm"}})
	}
	return out
}
