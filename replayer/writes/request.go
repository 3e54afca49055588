package writes

import (
	"fmt"
	"k8s.io/apimachinery/pkg/runtime"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
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
	// DeleteCollection is a DELETE of the collection: every object
	// Request.List selects.
	DeleteCollection
)

// String returns "create", "update", "patch", "delete" or
// "deletecollection".
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
	case DeleteCollection:
		return "deletecollection"
	}
	return fmt.Sprintf("Verb(%d)", int(v))
}

// Kind is what the write needs to know of the resource it is to.
type Kind struct {
	// Resource is the resource: group, version, plural name, kind and
	// whether it is namespaced.
	Resource history.Resource
	// Builtin says client-go's scheme knows the kind (a Kubernetes type,
	// not a custom resource). Then strategic merge patch applies, and an
	// update without a resourceVersion is allowed. Bodies may be protobuf,
	// and server-side apply uses its OpenAPI schema.
	Builtin bool
	// Status says the resource has a status subresource. A write of the
	// main resource keeps the stored status; a status write keeps all else.
	// For a custom resource, a status change does not bump the generation.
	Status bool
	// Graceful says a DELETE of the resource is graceful, as a pod's is
	// in kube-apiserver (graceful.go): only for a kind GracefulKind
	// accepts. Off, a pod is deleted at once, as though its kubelet
	// confirmed at once (a replay with no kubelet to finish it).
	Graceful bool
	// Defaulter, when set, is kube-apiserver's defaulting of the kind's
	// objects (its SetDefaults funcs). Every body decoded into the kind's
	// Go type is defaulted, as the apiserver's decoder defaults it. Nil
	// means none. The main module cannot import k8s.io/kubernetes, which
	// holds them; the actors module supplies them.
	Defaulter runtime.ObjectDefaulter
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
	// Subresource is "", "status", "scale", "binding" or "finalize". A
	// pod's "binding" is a Create of a Binding, Name the pod's. A
	// namespace's "finalize" is an Update of its spec and metadata.
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
	// FieldValidation is the fieldValidation query parameter: Strict,
	// Warn or Ignore ("" when absent: Warn).
	FieldValidation string
	// Force is force=true (server-side apply only).
	Force bool
	// UserAgent is the client's User-Agent, which names the field
	// manager when FieldManager does not (as kube-apiserver does).
	UserAgent string
	// Delete are the delete options of the query (a body's, when it has
	// one, win, as in kube-apiserver).
	Delete metav1.DeleteOptions
	// List are the list options of a DeleteCollection: its label and
	// field selectors (field labels checked for the kind) and limit.
	List metainternalversion.ListOptions

	// checked says an identical earlier write (trackMemo) stored the same
	// object: its metadata passed validation, and need not be checked again.
	checked bool
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
	// NextRV returns the resourceVersion the write stores its object at.
	// It is called once for each object a write stores. It is never called
	// for a dry run or a write that stores nothing.
	NextRV func() string
	// NewUID returns the UID of a created object.
	NewUID func() types.UID
	// Suffix returns the 5 random characters generateName appends (from
	// the run's seed), as k8s.io/apiserver/pkg/storage/names does.
	Suffix func() string
	// Revision is the resourceVersion of the state the write sees (a
	// list taken now): a DeleteCollection answers its list at it.
	Revision string
	// Namespace, when set, returns the namespace named name as stored
	// now: the NamespaceLifecycle admission of a create reads it. Nil: no
	// namespace is known, and none is refused.
	Namespace func(name string) (*unstructured.Unstructured, bool)
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
	// (a delete that left the object to its finalizers). A
	// DeleteCollection that failed part way has the failure's code. Then
	// Answer is its Status, and the deletions made before it are stored.
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
	// AnswerIsStored says Answer is Stored itself, as kube-apiserver answers
	// a create, an update, a patch, or a delete that only marks the object.
	// The replay may then answer with the stored object's encoding. Neither
	// may be changed.
	AnswerIsStored bool
	// Warnings are the warnings the answer carries (a Warning header
	// each): fieldValidation Warn's unknown and duplicate fields.
	Warnings []string
	// More are the changes stored after Event and Stored, in the order
	// of their resourceVersions: a DeleteCollection's second and later
	// (nil for every other write).
	More []Change
	// Before are the changes stored before Event and Stored, in the
	// order of their resourceVersions. It is the mark a pod's graceful
	// delete with no grace left stores before it deletes the pod. It is
	// nil for every other write.
	Before []Change
}

// Change is one stored change of a write that stores several.
type Change struct {
	// Event is what it did to the object.
	Event Event
	// Stored is the object as stored (for Deleted: as it was deleted).
	Stored *unstructured.Unstructured
}

// Key returns the key of namespace/name as State keys objects.
func Key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
