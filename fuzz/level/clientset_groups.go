package level

import (
	admissionregistrationv1 "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"
	admissionregistrationv1alpha1 "k8s.io/client-go/kubernetes/typed/admissionregistration/v1alpha1"
	admissionregistrationv1beta1 "k8s.io/client-go/kubernetes/typed/admissionregistration/v1beta1"
	internalv1alpha1 "k8s.io/client-go/kubernetes/typed/apiserverinternal/v1alpha1"
	appsv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
	appsv1beta1 "k8s.io/client-go/kubernetes/typed/apps/v1beta1"
	appsv1beta2 "k8s.io/client-go/kubernetes/typed/apps/v1beta2"
	authenticationv1 "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authenticationv1alpha1 "k8s.io/client-go/kubernetes/typed/authentication/v1alpha1"
	authenticationv1beta1 "k8s.io/client-go/kubernetes/typed/authentication/v1beta1"
	authorizationv1 "k8s.io/client-go/kubernetes/typed/authorization/v1"
	authorizationv1beta1 "k8s.io/client-go/kubernetes/typed/authorization/v1beta1"
	autoscalingv1 "k8s.io/client-go/kubernetes/typed/autoscaling/v1"
	autoscalingv2 "k8s.io/client-go/kubernetes/typed/autoscaling/v2"
	batchv1 "k8s.io/client-go/kubernetes/typed/batch/v1"
	batchv1beta1 "k8s.io/client-go/kubernetes/typed/batch/v1beta1"
	certificatesv1 "k8s.io/client-go/kubernetes/typed/certificates/v1"
	certificatesv1alpha1 "k8s.io/client-go/kubernetes/typed/certificates/v1alpha1"
	certificatesv1beta1 "k8s.io/client-go/kubernetes/typed/certificates/v1beta1"
	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	coordinationv1alpha2 "k8s.io/client-go/kubernetes/typed/coordination/v1alpha2"
	coordinationv1beta1 "k8s.io/client-go/kubernetes/typed/coordination/v1beta1"
	corev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	discoveryv1 "k8s.io/client-go/kubernetes/typed/discovery/v1"
	discoveryv1beta1 "k8s.io/client-go/kubernetes/typed/discovery/v1beta1"
	eventsv1 "k8s.io/client-go/kubernetes/typed/events/v1"
	eventsv1beta1 "k8s.io/client-go/kubernetes/typed/events/v1beta1"
	extensionsv1beta1 "k8s.io/client-go/kubernetes/typed/extensions/v1beta1"
	flowcontrolv1 "k8s.io/client-go/kubernetes/typed/flowcontrol/v1"
	flowcontrolv1beta1 "k8s.io/client-go/kubernetes/typed/flowcontrol/v1beta1"
	flowcontrolv1beta2 "k8s.io/client-go/kubernetes/typed/flowcontrol/v1beta2"
	flowcontrolv1beta3 "k8s.io/client-go/kubernetes/typed/flowcontrol/v1beta3"
	networkingv1 "k8s.io/client-go/kubernetes/typed/networking/v1"
	networkingv1beta1 "k8s.io/client-go/kubernetes/typed/networking/v1beta1"
	nodev1 "k8s.io/client-go/kubernetes/typed/node/v1"
	nodev1alpha1 "k8s.io/client-go/kubernetes/typed/node/v1alpha1"
	nodev1beta1 "k8s.io/client-go/kubernetes/typed/node/v1beta1"
	policyv1 "k8s.io/client-go/kubernetes/typed/policy/v1"
	policyv1beta1 "k8s.io/client-go/kubernetes/typed/policy/v1beta1"
	rbacv1 "k8s.io/client-go/kubernetes/typed/rbac/v1"
	rbacv1alpha1 "k8s.io/client-go/kubernetes/typed/rbac/v1alpha1"
	rbacv1beta1 "k8s.io/client-go/kubernetes/typed/rbac/v1beta1"
	resourcev1 "k8s.io/client-go/kubernetes/typed/resource/v1"
	resourcev1alpha3 "k8s.io/client-go/kubernetes/typed/resource/v1alpha3"
	resourcev1beta1 "k8s.io/client-go/kubernetes/typed/resource/v1beta1"
	resourcev1beta2 "k8s.io/client-go/kubernetes/typed/resource/v1beta2"
	schedulingv1 "k8s.io/client-go/kubernetes/typed/scheduling/v1"
	schedulingv1beta1 "k8s.io/client-go/kubernetes/typed/scheduling/v1beta1"
	storagev1 "k8s.io/client-go/kubernetes/typed/storage/v1"
	storagev1alpha1 "k8s.io/client-go/kubernetes/typed/storage/v1alpha1"
	storagev1beta1 "k8s.io/client-go/kubernetes/typed/storage/v1beta1"
	storagemigrationv1beta1 "k8s.io/client-go/kubernetes/typed/storagemigration/v1beta1"
)

// The typed level's clientset offers every group version of client-go's
// kubernetes.Interface. Those of every supported client-go version (v0.35
// to v0.37) go through the REST client of the same group version (client-go's
// group client says which), decoding through the memo. A group only some
// of them have is the embedded wire clientset's: it works, decoding every
// body. Those groups are:
//   - autoscaling/v2beta1, v2beta2 and scheduling/v1alpha1 before v0.36;
//   - scheduling/v1alpha2 in v0.36;
//   - lifecycle/v1alpha1, scheduling/v1alpha3 and storagemigration/v1
//     since v0.37.
//
// TestMemoClientsetGroups checks that each method reaches its own group
// version, through the memo where this file lists it.

// AdmissionregistrationV1 returns the AdmissionregistrationV1 group client, decoding through the memo.
func (c *memoClientset) AdmissionregistrationV1() admissionregistrationv1.AdmissionregistrationV1Interface {
	return admissionregistrationv1.New(c.of(c.shape.AdmissionregistrationV1()))
}

// AdmissionregistrationV1alpha1 returns the AdmissionregistrationV1alpha1 group client, decoding through the memo.
func (c *memoClientset) AdmissionregistrationV1alpha1() admissionregistrationv1alpha1.AdmissionregistrationV1alpha1Interface {
	return admissionregistrationv1alpha1.New(c.of(c.shape.AdmissionregistrationV1alpha1()))
}

// AdmissionregistrationV1beta1 returns the AdmissionregistrationV1beta1 group client, decoding through the memo.
func (c *memoClientset) AdmissionregistrationV1beta1() admissionregistrationv1beta1.AdmissionregistrationV1beta1Interface {
	return admissionregistrationv1beta1.New(c.of(c.shape.AdmissionregistrationV1beta1()))
}

// InternalV1alpha1 returns the InternalV1alpha1 group client, decoding through the memo.
func (c *memoClientset) InternalV1alpha1() internalv1alpha1.InternalV1alpha1Interface {
	return internalv1alpha1.New(c.of(c.shape.InternalV1alpha1()))
}

// AppsV1 returns the AppsV1 group client, decoding through the memo.
func (c *memoClientset) AppsV1() appsv1.AppsV1Interface { return appsv1.New(c.of(c.shape.AppsV1())) }

// AppsV1beta1 returns the AppsV1beta1 group client, decoding through the memo.
func (c *memoClientset) AppsV1beta1() appsv1beta1.AppsV1beta1Interface {
	return appsv1beta1.New(c.of(c.shape.AppsV1beta1()))
}

// AppsV1beta2 returns the AppsV1beta2 group client, decoding through the memo.
func (c *memoClientset) AppsV1beta2() appsv1beta2.AppsV1beta2Interface {
	return appsv1beta2.New(c.of(c.shape.AppsV1beta2()))
}

// AuthenticationV1 returns the AuthenticationV1 group client, decoding through the memo.
func (c *memoClientset) AuthenticationV1() authenticationv1.AuthenticationV1Interface {
	return authenticationv1.New(c.of(c.shape.AuthenticationV1()))
}

// AuthenticationV1alpha1 returns the AuthenticationV1alpha1 group client, decoding through the memo.
func (c *memoClientset) AuthenticationV1alpha1() authenticationv1alpha1.AuthenticationV1alpha1Interface {
	return authenticationv1alpha1.New(c.of(c.shape.AuthenticationV1alpha1()))
}

// AuthenticationV1beta1 returns the AuthenticationV1beta1 group client, decoding through the memo.
func (c *memoClientset) AuthenticationV1beta1() authenticationv1beta1.AuthenticationV1beta1Interface {
	return authenticationv1beta1.New(c.of(c.shape.AuthenticationV1beta1()))
}

// AuthorizationV1 returns the AuthorizationV1 group client, decoding through the memo.
func (c *memoClientset) AuthorizationV1() authorizationv1.AuthorizationV1Interface {
	return authorizationv1.New(c.of(c.shape.AuthorizationV1()))
}

// AuthorizationV1beta1 returns the AuthorizationV1beta1 group client, decoding through the memo.
func (c *memoClientset) AuthorizationV1beta1() authorizationv1beta1.AuthorizationV1beta1Interface {
	return authorizationv1beta1.New(c.of(c.shape.AuthorizationV1beta1()))
}

// AutoscalingV1 returns the AutoscalingV1 group client, decoding through the memo.
func (c *memoClientset) AutoscalingV1() autoscalingv1.AutoscalingV1Interface {
	return autoscalingv1.New(c.of(c.shape.AutoscalingV1()))
}

// AutoscalingV2 returns the AutoscalingV2 group client, decoding through the memo.
func (c *memoClientset) AutoscalingV2() autoscalingv2.AutoscalingV2Interface {
	return autoscalingv2.New(c.of(c.shape.AutoscalingV2()))
}

// BatchV1 returns the BatchV1 group client, decoding through the memo.
func (c *memoClientset) BatchV1() batchv1.BatchV1Interface {
	return batchv1.New(c.of(c.shape.BatchV1()))
}

// BatchV1beta1 returns the BatchV1beta1 group client, decoding through the memo.
func (c *memoClientset) BatchV1beta1() batchv1beta1.BatchV1beta1Interface {
	return batchv1beta1.New(c.of(c.shape.BatchV1beta1()))
}

// CertificatesV1 returns the CertificatesV1 group client, decoding through the memo.
func (c *memoClientset) CertificatesV1() certificatesv1.CertificatesV1Interface {
	return certificatesv1.New(c.of(c.shape.CertificatesV1()))
}

// CertificatesV1beta1 returns the CertificatesV1beta1 group client, decoding through the memo.
func (c *memoClientset) CertificatesV1beta1() certificatesv1beta1.CertificatesV1beta1Interface {
	return certificatesv1beta1.New(c.of(c.shape.CertificatesV1beta1()))
}

// CertificatesV1alpha1 returns the CertificatesV1alpha1 group client, decoding through the memo.
func (c *memoClientset) CertificatesV1alpha1() certificatesv1alpha1.CertificatesV1alpha1Interface {
	return certificatesv1alpha1.New(c.of(c.shape.CertificatesV1alpha1()))
}

// CoordinationV1alpha2 returns the CoordinationV1alpha2 group client, decoding through the memo.
func (c *memoClientset) CoordinationV1alpha2() coordinationv1alpha2.CoordinationV1alpha2Interface {
	return coordinationv1alpha2.New(c.of(c.shape.CoordinationV1alpha2()))
}

// CoordinationV1beta1 returns the CoordinationV1beta1 group client, decoding through the memo.
func (c *memoClientset) CoordinationV1beta1() coordinationv1beta1.CoordinationV1beta1Interface {
	return coordinationv1beta1.New(c.of(c.shape.CoordinationV1beta1()))
}

// CoordinationV1 returns the CoordinationV1 group client, decoding through the memo.
func (c *memoClientset) CoordinationV1() coordinationv1.CoordinationV1Interface {
	return coordinationv1.New(c.of(c.shape.CoordinationV1()))
}

// CoreV1 returns the CoreV1 group client, decoding through the memo.
func (c *memoClientset) CoreV1() corev1.CoreV1Interface { return corev1.New(c.of(c.shape.CoreV1())) }

// DiscoveryV1 returns the DiscoveryV1 group client, decoding through the memo.
func (c *memoClientset) DiscoveryV1() discoveryv1.DiscoveryV1Interface {
	return discoveryv1.New(c.of(c.shape.DiscoveryV1()))
}

// DiscoveryV1beta1 returns the DiscoveryV1beta1 group client, decoding through the memo.
func (c *memoClientset) DiscoveryV1beta1() discoveryv1beta1.DiscoveryV1beta1Interface {
	return discoveryv1beta1.New(c.of(c.shape.DiscoveryV1beta1()))
}

// EventsV1 returns the EventsV1 group client, decoding through the memo.
func (c *memoClientset) EventsV1() eventsv1.EventsV1Interface {
	return eventsv1.New(c.of(c.shape.EventsV1()))
}

// EventsV1beta1 returns the EventsV1beta1 group client, decoding through the memo.
func (c *memoClientset) EventsV1beta1() eventsv1beta1.EventsV1beta1Interface {
	return eventsv1beta1.New(c.of(c.shape.EventsV1beta1()))
}

// ExtensionsV1beta1 returns the ExtensionsV1beta1 group client, decoding through the memo.
func (c *memoClientset) ExtensionsV1beta1() extensionsv1beta1.ExtensionsV1beta1Interface {
	return extensionsv1beta1.New(c.of(c.shape.ExtensionsV1beta1()))
}

// FlowcontrolV1 returns the FlowcontrolV1 group client, decoding through the memo.
func (c *memoClientset) FlowcontrolV1() flowcontrolv1.FlowcontrolV1Interface {
	return flowcontrolv1.New(c.of(c.shape.FlowcontrolV1()))
}

// FlowcontrolV1beta1 returns the FlowcontrolV1beta1 group client, decoding through the memo.
func (c *memoClientset) FlowcontrolV1beta1() flowcontrolv1beta1.FlowcontrolV1beta1Interface {
	return flowcontrolv1beta1.New(c.of(c.shape.FlowcontrolV1beta1()))
}

// FlowcontrolV1beta2 returns the FlowcontrolV1beta2 group client, decoding through the memo.
func (c *memoClientset) FlowcontrolV1beta2() flowcontrolv1beta2.FlowcontrolV1beta2Interface {
	return flowcontrolv1beta2.New(c.of(c.shape.FlowcontrolV1beta2()))
}

// FlowcontrolV1beta3 returns the FlowcontrolV1beta3 group client, decoding through the memo.
func (c *memoClientset) FlowcontrolV1beta3() flowcontrolv1beta3.FlowcontrolV1beta3Interface {
	return flowcontrolv1beta3.New(c.of(c.shape.FlowcontrolV1beta3()))
}

// NetworkingV1 returns the NetworkingV1 group client, decoding through the memo.
func (c *memoClientset) NetworkingV1() networkingv1.NetworkingV1Interface {
	return networkingv1.New(c.of(c.shape.NetworkingV1()))
}

// NetworkingV1beta1 returns the NetworkingV1beta1 group client, decoding through the memo.
func (c *memoClientset) NetworkingV1beta1() networkingv1beta1.NetworkingV1beta1Interface {
	return networkingv1beta1.New(c.of(c.shape.NetworkingV1beta1()))
}

// NodeV1 returns the NodeV1 group client, decoding through the memo.
func (c *memoClientset) NodeV1() nodev1.NodeV1Interface { return nodev1.New(c.of(c.shape.NodeV1())) }

// NodeV1alpha1 returns the NodeV1alpha1 group client, decoding through the memo.
func (c *memoClientset) NodeV1alpha1() nodev1alpha1.NodeV1alpha1Interface {
	return nodev1alpha1.New(c.of(c.shape.NodeV1alpha1()))
}

// NodeV1beta1 returns the NodeV1beta1 group client, decoding through the memo.
func (c *memoClientset) NodeV1beta1() nodev1beta1.NodeV1beta1Interface {
	return nodev1beta1.New(c.of(c.shape.NodeV1beta1()))
}

// PolicyV1 returns the PolicyV1 group client, decoding through the memo.
func (c *memoClientset) PolicyV1() policyv1.PolicyV1Interface {
	return policyv1.New(c.of(c.shape.PolicyV1()))
}

// PolicyV1beta1 returns the PolicyV1beta1 group client, decoding through the memo.
func (c *memoClientset) PolicyV1beta1() policyv1beta1.PolicyV1beta1Interface {
	return policyv1beta1.New(c.of(c.shape.PolicyV1beta1()))
}

// RbacV1 returns the RbacV1 group client, decoding through the memo.
func (c *memoClientset) RbacV1() rbacv1.RbacV1Interface { return rbacv1.New(c.of(c.shape.RbacV1())) }

// RbacV1beta1 returns the RbacV1beta1 group client, decoding through the memo.
func (c *memoClientset) RbacV1beta1() rbacv1beta1.RbacV1beta1Interface {
	return rbacv1beta1.New(c.of(c.shape.RbacV1beta1()))
}

// RbacV1alpha1 returns the RbacV1alpha1 group client, decoding through the memo.
func (c *memoClientset) RbacV1alpha1() rbacv1alpha1.RbacV1alpha1Interface {
	return rbacv1alpha1.New(c.of(c.shape.RbacV1alpha1()))
}

// ResourceV1 returns the ResourceV1 group client, decoding through the memo.
func (c *memoClientset) ResourceV1() resourcev1.ResourceV1Interface {
	return resourcev1.New(c.of(c.shape.ResourceV1()))
}

// ResourceV1beta2 returns the ResourceV1beta2 group client, decoding through the memo.
func (c *memoClientset) ResourceV1beta2() resourcev1beta2.ResourceV1beta2Interface {
	return resourcev1beta2.New(c.of(c.shape.ResourceV1beta2()))
}

// ResourceV1beta1 returns the ResourceV1beta1 group client, decoding through the memo.
func (c *memoClientset) ResourceV1beta1() resourcev1beta1.ResourceV1beta1Interface {
	return resourcev1beta1.New(c.of(c.shape.ResourceV1beta1()))
}

// ResourceV1alpha3 returns the ResourceV1alpha3 group client, decoding through the memo.
func (c *memoClientset) ResourceV1alpha3() resourcev1alpha3.ResourceV1alpha3Interface {
	return resourcev1alpha3.New(c.of(c.shape.ResourceV1alpha3()))
}

// SchedulingV1beta1 returns the SchedulingV1beta1 group client, decoding through the memo.
func (c *memoClientset) SchedulingV1beta1() schedulingv1beta1.SchedulingV1beta1Interface {
	return schedulingv1beta1.New(c.of(c.shape.SchedulingV1beta1()))
}

// SchedulingV1 returns the SchedulingV1 group client, decoding through the memo.
func (c *memoClientset) SchedulingV1() schedulingv1.SchedulingV1Interface {
	return schedulingv1.New(c.of(c.shape.SchedulingV1()))
}

// StorageV1beta1 returns the StorageV1beta1 group client, decoding through the memo.
func (c *memoClientset) StorageV1beta1() storagev1beta1.StorageV1beta1Interface {
	return storagev1beta1.New(c.of(c.shape.StorageV1beta1()))
}

// StorageV1 returns the StorageV1 group client, decoding through the memo.
func (c *memoClientset) StorageV1() storagev1.StorageV1Interface {
	return storagev1.New(c.of(c.shape.StorageV1()))
}

// StorageV1alpha1 returns the StorageV1alpha1 group client, decoding through the memo.
func (c *memoClientset) StorageV1alpha1() storagev1alpha1.StorageV1alpha1Interface {
	return storagev1alpha1.New(c.of(c.shape.StorageV1alpha1()))
}

// StoragemigrationV1beta1 returns the StoragemigrationV1beta1 group client, decoding through the memo.
func (c *memoClientset) StoragemigrationV1beta1() storagemigrationv1beta1.StoragemigrationV1beta1Interface {
	return storagemigrationv1beta1.New(c.of(c.shape.StoragemigrationV1beta1()))
}
