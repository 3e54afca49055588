package kvstore

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// GroupVersion is the API group and version of KVStore.
var GroupVersion = schema.GroupVersion{Group: "kv.lwreplay.dev", Version: "v1"}

// Resource is the plural resource name of KVStore (kvstores.kv.lwreplay.dev).
const Resource = "kvstores"

// ConditionReady is the type of the condition that says whether every
// replica a KVStore asks for is ready.
const ConditionReady = "Ready"

// KVStore is a namespaced custom resource with a status subresource
// (testdata/crd.yaml). It is a replicated key-value store, run as a
// StatefulSet of Spec.Replicas pods, each with a volume of its own.
type KVStore struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   KVStoreSpec   `json:"spec,omitempty"`
	Status KVStoreStatus `json:"status,omitempty"`
}

// KVStoreSpec is what a KVStore asks for.
type KVStoreSpec struct {
	// Replicas is how many pods serve the store.
	Replicas int32 `json:"replicas"`
	// Image is the store's container image; empty means DefaultImage.
	Image string `json:"image,omitempty"`
	// Storage is each replica's volume size; empty means DefaultStorage.
	Storage string `json:"storage,omitempty"`
}

// KVStoreStatus is what the operator reports on a KVStore.
type KVStoreStatus struct {
	// ReadyReplicas is the StatefulSet's ready pods.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// ObservedGeneration is the KVStore's generation the status reports.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions hold Ready: true once ReadyReplicas equals Spec.Replicas.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KVStoreList is a list of KVStores.
type KVStoreList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []KVStore `json:"items"`
}

// AddToScheme registers KVStore and KVStoreList under GroupVersion in s.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &KVStore{}, &KVStoreList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// NewScheme returns a scheme with client-go's types and KVStore: the
// scheme of the operator's manager.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}
