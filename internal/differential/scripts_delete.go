package differential

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// propagationScript: three Deployments of 2 replicas, "background",
// "foreground" and "orphan", each deleted with that propagation once
// rolled out. The first two take their ReplicaSet and pods with them;
// the third leaves its ReplicaSet and pods, no longer owned.
func propagationScript(ctx context.Context, cs kubernetes.Interface, p Params) error {
	p = p.defaults()
	ns := "diff-propagation"
	if err := createNamespace(ctx, cs, ns); err != nil {
		return err
	}
	policies := []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan}
	deps := cs.AppsV1().Deployments(ns)
	for _, pol := range policies {
		name := policyName(pol)
		if _, err := deps.Create(ctx, deployment(name, 2, "registry.invalid/"+name+":v1"), metav1.CreateOptions{}); err != nil {
			return step("create deployment "+name, err)
		}
	}
	for _, pol := range policies {
		name := policyName(pol)
		if err := waitFor(ctx, p, "deployment "+name+" rolled out", deploymentComplete(cs, ns, name)); err != nil {
			return err
		}
	}
	for _, pol := range policies {
		name := policyName(pol)
		if err := deps.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &pol}); err != nil {
			return step("delete deployment "+name, err)
		}
		if err := waitFor(ctx, p, "deployment "+name+" gone", gone(func(ctx context.Context) error {
			_, err := deps.Get(ctx, name, metav1.GetOptions{})
			return err
		})); err != nil {
			return err
		}
		want := 0
		if pol == metav1.DeletePropagationOrphan {
			want = 2
		}
		if err := waitFor(ctx, p, fmt.Sprintf("%d pods of %s left", want, name), podCount(cs, ns, "app="+name, want)); err != nil {
			return err
		}
		if pol == metav1.DeletePropagationOrphan {
			if err := waitFor(ctx, p, "orphan's replicaset without owner", func(ctx context.Context) (bool, error) {
				rss, err := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
				if err != nil || len(rss.Items) != 1 {
					return false, err
				}
				return len(rss.Items[0].OwnerReferences) == 0, nil
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

// policyName is the Deployment name of a propagation policy.
func policyName(p metav1.DeletionPropagation) string {
	switch p {
	case metav1.DeletePropagationBackground:
		return "background"
	case metav1.DeletePropagationForeground:
		return "foreground"
	default:
		return "orphan"
	}
}

// namespaceScript: a namespace holding a Deployment of 2 replicas, a
// Service selecting its pods, and a ConfigMap. It is deleted once the
// Deployment is rolled out and the Service has endpoints. The namespace
// controller empties it, and it goes.
func namespaceScript(ctx context.Context, cs kubernetes.Interface, p Params) error {
	p = p.defaults()
	ns := "diff-namespace"
	if err := createNamespace(ctx, cs, ns); err != nil {
		return err
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, deployment("app", 2, "registry.invalid/app:v1"), metav1.CreateOptions{}); err != nil {
		return step("create deployment", err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "app"},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "app"},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80}},
		},
	}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return step("create service", err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}, Data: map[string]string{"k": "v"}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return step("create configmap", err)
	}
	if err := waitFor(ctx, p, "deployment rolled out", deploymentComplete(cs, ns, "app")); err != nil {
		return err
	}
	if err := waitFor(ctx, p, "service's endpoints ready", func(ctx context.Context) (bool, error) {
		slices, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=app"})
		if err != nil {
			return false, err
		}
		ready := 0
		for _, s := range slices.Items {
			for _, e := range s.Endpoints {
				if e.Conditions.Ready != nil && *e.Conditions.Ready {
					ready++
				}
			}
		}
		return ready == 2, nil
	}); err != nil {
		return err
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		return step("delete namespace", err)
	}
	return waitFor(ctx, p, "namespace gone", gone(func(ctx context.Context) error {
		_, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return err
	}))
}
