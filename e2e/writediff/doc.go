// Package writediff is the differential harness for writes. It runs scripted write sequences against a
// kube-apiserver: create, update, patch, server-side apply, delete, delete of a collection, dry runs, status and
// scale subresources, kubectl. It records what each step was answered in a normalized Transcript, with nothing
// run-specific left. Namespaces, uids, resourceVersions and generated names become placeholders; RVs are told as
// "greater" or "same". It compares two transcripts line by line. The real kube-apiserver's transcript is the
// golden one; the replay's is held to it.
//
// Typical use:
//
//	tr, err := writediff.Run(ctx, cfg, kubeconfig, writediff.Sequences())
//	want, err := writediff.ReadTranscript("testdata/writes/transcript.json")
//	for _, d := range writediff.Diff(want, tr) {
//		t.Error(d)
//	}
//
// Each Sequence runs on a fresh namespace, with a watch on one resource
// opened before its first step. The watch's events are part of the
// transcript. Before the sequences, Run creates the CustomResourceDefinition
// widgets.example.com (with a status subresource) and waits for it to be
// established.
package writediff
