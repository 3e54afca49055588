package writes

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// A Service's defaults. kube-apiserver's decoder defaults every Service it
// is sent (k8s.io/kubernetes v1.37.2 pkg/apis/core/v1/defaults.go
// SetDefaults_Service). Controllers read them back: KubeRay's RayCluster
// controller reports each head Service port's targetPort in its status,
// and an undefaulted port made it rewrite that status for ever. Without a
// Defaulter (WithDefaulter, k8s.io/kubernetes' funcs), the replay applies
// the part that is a function of the Service alone: sessionAffinity, type,
// each port's protocol and targetPort, internalTrafficPolicy. It leaves the
// rest to the real funcs: externalTrafficPolicy (service.ExternallyAccessible),
// a load balancer's node ports and IP mode, and every allocation.

// defaultTyped defaults into, a decoded object of the built-in kind k, as
// kube-apiserver's decoder does: with k's Defaulter, else a Service with
// its object-local defaults (defaultService).
func defaultTyped(k Kind, into runtime.Object) {
	if k.Defaulter != nil {
		k.Defaulter.Default(into)
		return
	}
	if svc, ok := into.(*corev1.Service); ok && isServices(k) {
		defaultService(svc)
	}
}

// isServices says k is the core group's services.
func isServices(k Kind) bool {
	return k.Builtin && k.Resource.Group == "" && k.Resource.Resource == "services"
}

// defaultService sets svc's object-local defaults as SetDefaults_Service
// does.
func defaultService(svc *corev1.Service) {
	if svc.Spec.SessionAffinity == "" {
		svc.Spec.SessionAffinity = corev1.ServiceAffinityNone
	}
	if svc.Spec.SessionAffinity == corev1.ServiceAffinityNone {
		svc.Spec.SessionAffinityConfig = nil
	}
	if svc.Spec.Type == "" {
		svc.Spec.Type = corev1.ServiceTypeClusterIP
	}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		if sp.Protocol == "" {
			sp.Protocol = corev1.ProtocolTCP
		}
		if sp.TargetPort == intstr.FromInt32(0) || sp.TargetPort == intstr.FromString("") {
			sp.TargetPort = intstr.FromInt32(sp.Port)
		}
	}
	if svc.Spec.InternalTrafficPolicy == nil {
		switch svc.Spec.Type {
		case corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeClusterIP:
			p := corev1.ServiceInternalTrafficPolicyCluster
			svc.Spec.InternalTrafficPolicy = &p
		}
	}
}
