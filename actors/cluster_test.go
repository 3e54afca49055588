package actors_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/actors"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/replayer"
)

// TestClusterStatefulSet runs the cluster group (kube-controller-manager,
// scheduler, kubelet, volume provisioner) in a synctest bubble. The
// replay defaults writes and deletes pods gracefully, as kube-apiserver
// does. The test sends a StatefulSet with a volume claim template,
// ordered pod management and a headless Service, undefaulted; the replay
// defaults it. It is scaled 0→3 (pods ready, claims bound). Its template
// is changed (rolled: every replica updated), and it is scaled 3→1.
func TestClusterStatefulSet(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts kube-controller-manager's controllers")
	}
	restore := harness.QuietClientGo()
	t.Cleanup(restore)
	synctest.Test(t, func(t *testing.T) {
		srv := replayer.New(namespaceHistory(t), replayer.WithoutGC(), replayer.WithGracefulDeletion(), replayer.WithDefaulter(actors.Defaults()))
		as, err := actors.Registry().Lookup("cluster")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		var dones []chan error
		for _, a := range as {
			d := make(chan error, 1)
			dones = append(dones, d)
			go func() { d <- a.Run(ctx, actor.Env{Config: actorConfig(srv, a.Name)}) }()
		}
		c := kubernetes.NewForConfigOrDie(&rest.Config{Host: "http://replay", Transport: srv.Transport()})
		if _, err := c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone,
			Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		zero := int32(0)
		sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: appsv1.StatefulSetSpec{
			Replicas: &zero, Selector: selector("web"), Template: podTemplate("web"), ServiceName: "web"}}
		sts.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
		sts.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}}
		if _, err := c.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		wait := func(n int32, rev bool) {
			for _, p := range waitFor(ctx, c, func(ctx context.Context, c kubernetes.Interface) []string {
				s, err := c.AppsV1().StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
				if err != nil {
					return []string{err.Error()}
				}
				if s.Status.ReadyReplicas != n || s.Status.Replicas != n || (rev && s.Status.UpdatedReplicas != n) {
					return []string{fmt.Sprintf("got status %+v, want %d replicas ready (updated: %v)", s.Status, n, rev)}
				}
				return nil
			}) {
				t.Error(p)
			}
		}
		scale := func(n int32, mut func(*appsv1.StatefulSet)) {
			if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				s, err := c.AppsV1().StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
				if err != nil {
					return err
				}
				s.Spec.Replicas = &n
				if mut != nil {
					mut(s)
				}
				_, err = c.AppsV1().StatefulSets(ns).Update(ctx, s, metav1.UpdateOptions{})
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		wait(0, false)
		scale(3, nil)
		wait(3, false)
		scale(3, func(s *appsv1.StatefulSet) { s.Spec.Template.Labels["rev"] = "2" })
		wait(3, true)
		scale(1, nil)
		wait(1, true)
		cancel()
		for _, d := range dones {
			<-d
		}
	})
}
