// Code written by hand in the shape controller-gen generates.

package kvstore

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopyInto copies in into out.
func (in *KVStore) DeepCopyInto(out *KVStore) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = in.Spec
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in.
func (in *KVStore) DeepCopy() *KVStore {
	if in == nil {
		return nil
	}
	out := new(KVStore)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a copy of in as a runtime.Object.
func (in *KVStore) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out.
func (in *KVStoreStatus) DeepCopyInto(out *KVStoreStatus) {
	*out = *in
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

// DeepCopy returns a copy of in.
func (in *KVStoreStatus) DeepCopy() *KVStoreStatus {
	if in == nil {
		return nil
	}
	out := new(KVStoreStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out.
func (in *KVStoreList) DeepCopyInto(out *KVStoreList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]KVStore, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of in.
func (in *KVStoreList) DeepCopy() *KVStoreList {
	if in == nil {
		return nil
	}
	out := new(KVStoreList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a copy of in as a runtime.Object.
func (in *KVStoreList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}
