// Package writes answers one write request with kube-apiserver's rules
// (k8s.io/apiserver registry/generic/registry/store.go, registry/rest,
// endpoints/handlers). It says what the request stores, the event it
// makes, and the answer, or the Status error a real apiserver gives.
// The writes are:
//   - create, update, delete, and delete of a collection;
//   - patch: JSON merge, strategic merge, JSON patch, server-side apply;
//   - the status, scale, (a pod's) binding and (a namespace's) finalize
//     subresources.
//
// It is pure. Do reads the objects of the resource through a State. It
// stamps what the server stamps (time, resourceVersion, UID, generated
// names) through an Env, and changes nothing itself. The replayer holds
// the state, gives writes their place in its one revision order, and
// serves their events to watches.
//
//	res, err := writes.Do(state, env, writes.Request{
//		Verb: writes.Create, Kind: kind, Namespace: "ns",
//		Body: body, ContentType: "application/json",
//	})
//	if err != nil { // an *apierrors.StatusError: write its Status
//		...
//	}
//	state.put(res.Stored) // res.Event says ADDED, MODIFIED or DELETED ("" for a dry run)
//
// What it models and what it does not is in docs/replayer.md ("Writes").
package writes
