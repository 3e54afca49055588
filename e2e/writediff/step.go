package writediff

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Via says which client a Step goes through.
type Via string

const (
	// Dynamic is client-go's dynamic client, speaking JSON.
	Dynamic Via = "dynamic"
	// Typed is client-go's typed clientset, speaking protobuf
	// (rest.Config.ContentType "application/vnd.kubernetes.protobuf"), as
	// controller-runtime's client sends built-in kinds. It serves
	// configmaps and deployments, and a deployment's scale subresource
	// (GetScale, UpdateScale).
	Typed Via = "typed"
	// Kubectl is a kubectl invocation (Step.Args).
	Kubectl Via = "kubectl"
)

// Verb is what a client Step asks of the server.
type Verb string

const (
	// Create sends Step.Body as a new object (POST).
	Create Verb = "create"
	// Get reads Step.Target.
	Get Verb = "get"
	// Update reads Step.Target, and merges Step.Body into it (a JSON
	// merge patch applied by the harness). It sets its resourceVersion
	// as Step.RV says, and sends it back (PUT).
	Update Verb = "update"
	// Patch sends Step.Body as a patch of Step.PatchType.
	Patch Verb = "patch"
	// Apply sends Step.Body as a server-side apply patch by Step.Manager.
	Apply Verb = "apply"
	// Delete deletes Step.Target.
	Delete Verb = "delete"
	// DeleteCollection deletes what Step.Selector and Step.FieldSelector
	// select in the namespace (DELETE of the collection). Step.Target,
	// when set, is the object whose stored state the transcript tells.
	DeleteCollection Verb = "deletecollection"
)

// RVChoice says which resourceVersion an Update sends.
type RVChoice string

const (
	// RVStored sends the stored object's resourceVersion (the default).
	RVStored RVChoice = ""
	// RVStale sends the first resourceVersion the harness saw of the
	// object, stale once it has been written again.
	RVStale RVChoice = "stale"
	// RVNone sends no resourceVersion.
	RVNone RVChoice = "none"
)

// Step is one scripted request. Client steps (Dynamic, Typed) say Verb,
// Resource, Target and Body; Kubectl steps say Args (and Stdin). In Body,
// Args and Stdin, "{ns}" is replaced by the sequence's namespace and
// "{staleRV}" by Target's first resourceVersion.
type Step struct {
	// Name names the step in the transcript.
	Name string
	// Via is the client.
	Via Via
	// Verb is what a client step asks.
	Verb Verb
	// Resource is "configmaps", "deployments" or "widgets".
	Resource string
	// Subresource is "", "status" (Dynamic only) or "scale". A scale step
	// holds its answer against the Scale before it, and an Update merges
	// Body into that Scale.
	Subresource string
	// Target is the object's name; empty for a create with generateName.
	// The harness reads Target before and after the step.
	Target string
	// Body is the object (Create, Apply), the edit (Update) or the patch.
	Body string
	// PatchType is the patch's type (Patch).
	PatchType types.PatchType
	// RV is the resourceVersion an Update sends.
	RV RVChoice
	// Manager is the field manager (Apply; optional for the others).
	Manager string
	// Force forces an Apply through conflicts.
	Force bool
	// DryRun sends dryRun=All.
	DryRun bool
	// UID is a delete's uid precondition, when not empty.
	UID string
	// TargetRV makes a delete's resourceVersion precondition Target's
	// stored resourceVersion before the step.
	TargetRV bool
	// Propagation is a delete's propagationPolicy, when not empty.
	Propagation metav1.DeletionPropagation
	// Selector and FieldSelector are a DeleteCollection's label and field
	// selectors.
	Selector, FieldSelector string
	// Show lists dotted paths ("data", "spec.template.spec.containers")
	// of the answered object whose values the transcript records.
	Show []string
	// Args are kubectl's arguments (Kubectl), without --kubeconfig and
	// --namespace, which the harness adds.
	Args []string
	// Stdin is kubectl's standard input.
	Stdin string
}

// Sequence is a named list of steps, run in order on a fresh namespace.
type Sequence struct {
	// Name names the sequence (and its namespace's prefix).
	Name string
	// Watch is the resource watched in the namespace from before the first
	// step; "" watches configmaps.
	Watch string
	// Steps are the requests.
	Steps []Step
}
