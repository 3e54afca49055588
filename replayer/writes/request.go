package writes

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/lwreplay/lwreplay/history"
)

// Verb is what a write request asks.
type Verb int

// The verbs of a write.
const (
	// Create is a POST to the collection.
	Create Verb = iota
	// Update is a PUT of the object (or of its subresource).
	Update
	// Patch is a PATCH of the object (or of its subresource), of
	// Request.PatchType.
	Patch
	// Delete is a DELETE of the object.
	Delete
)

// String returns "create", "update", "patch" or "delete".
func (v Verb) String() string {
	switch v {
	case Create:
		return "create"
	case Update:
		return "update"
	case Patch:
		return "patch"
	case Delete:
		return "delete"
	}
	return fmt.Sprintf("Verb(%d)", int(v))
}

// Kind is what the write needs to know of the resource it is to.
type Kind struct {
	// Resource is the resource: group, version, plural name, kind and
	// whether it is namespaced.
	Resource history.Resource
	// Builtin says client-go's scheme knows the kind (a Kubernetes type,
	// not a custom resource): strategic merge patch applies, an update
	// without a resourceVersion is allowed, bodies may be protobuf, and
	// server-side apply uses its OpenAPI schema.
	Builtin bool
	// Status says the resource has a status subresource: a write of the
	// main resource keeps the stored status, a status write keeps all
	// else, and (for a custom resource) a status change does not bump the
	// generation.
	Status bool
}

// Request is one write request, as the HTTP handler parsed it.
type Request struct {
	// Verb is what the request asks.
	Verb Verb
	// Kind is the resource the request is to.
	Kind Kind
	// Namespace and Name name the object ("" Name for a create, which
	// takes the body's name or generateName).
	Namespace, Name string
	// Subresource is "" or "status".
	Subresource string
	// Body is the request body: the object (create, update), the patch
	// (patch), or DeleteOptions (delete; may be empty).
	Body []byte
	// ContentType is the body's media type: application/json,
	// application/vnd.kubernetes.protobuf (built-in kinds), or a patch
	// type (application/merge-patch+json, application/strategic-merge-patch+json,
	// application/json-patch+json, application/apply-patch+yaml).
	ContentType string
	// PatchType is the patch's type (Verb Patch), taken from ContentType.
	PatchType types.PatchType
	// DryRun is dryRun=All: everything is checked and nothing stored.
	DryRun bool
	// FieldManager is the fieldManager query parameter ("" when absent).
	FieldManager string
	// Force is force=true (server-side apply only).
	Force bool
	// UserAgent is the client's User-Agent, which names the field
	// manager when FieldManager does not (as kube-apiserver does).
	UserAgent string
	// Delete are the delete options of the query (a body's, when it has
	// one, win, as in kube-apiserver).
	Delete metav1.DeleteOptions
}

// State is what a write sees of the objects of its resource now. Objects
// it returns are not to be changed.
type State interface {
	// Get returns the object stored under key ("namespace/name", or
	// "name" for a cluster-scoped resource).
	Get(key string) (*unstructured.Unstructured, bool)
}

// Env is what the server stamps on a write.
type Env struct {
	// Now is the time of the write (the run's virtual clock).
	Now time.Time
	// NextRV returns the resourceVersion the write stores its object at;
	// called once for each object a write stores, never for a dry run or
	// a write that stores nothing.
	NextRV func() string
	// NewUID returns the UID of a created object.
	NewUID func() types.UID
	// Suffix returns the 5 random characters generateName appends (from
	// the run's seed), as k8s.io/apiserver/pkg/storage/names does.
	Suffix func() string
}

// Event is what a write did to the stored object.
type Event string

// The events of a write; None for a dry run or a write that stored
// nothing new (a delete of an object already being deleted).
const (
	None     Event = ""
	Added    Event = "ADDED"
	Modified Event = "MODIFIED"
	Deleted  Event = "DELETED"
)

// Result is what a write did and answers.
type Result struct {
	// Code is the HTTP status of the answer: 200, 201 (created), or 202
	// (a delete that left the object to its finalizers).
	Code int
	// Event is what it did to the stored object.
	Event Event
	// Stored is the object as stored after the write (for Deleted: the
	// object as it was deleted, at its final resourceVersion); nil for
	// None.
	Stored *unstructured.Unstructured
	// Answer is the body of the answer: the object as a real apiserver
	// returns it (for a dry run: as it would have stored it).
	Answer *unstructured.Unstructured
}

// Key returns the key of namespace/name as State keys objects.
func Key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
