package kvstore

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

const (
	// DefaultImage is the store's image when a KVStore names none.
	DefaultImage = "registry.k8s.io/pause:3.10"
	// DefaultStorage is each replica's volume size when a KVStore names
	// none.
	DefaultStorage = "1Gi"
	// VolumeName is the volumeClaimTemplate's name: the PVC of ordinal n
	// of KVStore s is <VolumeName>-<s>-<n>.
	VolumeName = "data"
	// Port is the store's port, on the pods and the headless Service.
	Port = 6379
	// terminationGrace is the pods' graceful termination period, seconds.
	terminationGrace = 10
	// revisionHistory is the StatefulSet's revisionHistoryLimit
	// (kube-apiserver's default).
	revisionHistory = 10
)

// selector returns the labels of the KVStore's pods and PVCs.
func selector(kv *KVStore) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "kvstore", "app.kubernetes.io/instance": kv.Name}
}

// ensureService creates the KVStore's headless Service, controlled by it,
// unless the cache holds it.
func (r *Reconciler) ensureService(ctx context.Context, kv *KVStore) error {
	var svc corev1.Service
	err := r.client.Get(ctx, client.ObjectKeyFromObject(kv), &svc)
	if err == nil || !apierrors.IsNotFound(err) {
		return err
	}
	svc = corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: kv.Namespace, Name: kv.Name, Labels: selector(kv)},
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone,
			Selector:  selector(kv),
			Ports:     []corev1.ServicePort{{Name: "kv", Port: Port}},
		},
	}
	if err := controllerutil.SetControllerReference(kv, &svc, r.client.Scheme()); err != nil {
		return fmt.Errorf("own service %s: %w", kv.Name, err)
	}
	return r.client.Create(ctx, &svc)
}

// ensureStatefulSet returns the KVStore's StatefulSet from the cache, or
// creates it (controlled by the KVStore, spec.replicas pods). One the
// KVStore does not control is an error.
func (r *Reconciler) ensureStatefulSet(ctx context.Context, kv *KVStore) (*appsv1.StatefulSet, error) {
	var sts appsv1.StatefulSet
	err := r.client.Get(ctx, client.ObjectKeyFromObject(kv), &sts)
	switch {
	case err == nil:
		if !metav1.IsControlledBy(&sts, kv) { // a predecessor's, which the garbage collector deletes
			return nil, fmt.Errorf("statefulset %s/%s: controlled by another object than kvstore %s (uid %s)", sts.Namespace, sts.Name, kv.Name, kv.UID)
		}
		return &sts, nil
	case !apierrors.IsNotFound(err):
		return nil, err
	}
	want, err := r.statefulSet(kv)
	if err != nil {
		return nil, err
	}
	if err := r.client.Create(ctx, want); err != nil {
		return nil, err
	}
	return want, nil
}

// statefulSet builds the KVStore's StatefulSet: one pod per replica, each
// mounting a PVC of its own made from the volumeClaimTemplate.
func (r *Reconciler) statefulSet(kv *KVStore) (*appsv1.StatefulSet, error) {
	image, storage := kv.Spec.Image, kv.Spec.Storage
	if image == "" {
		image = DefaultImage
	}
	if storage == "" {
		storage = DefaultStorage
	}
	size, err := resource.ParseQuantity(storage)
	if err != nil {
		return nil, fmt.Errorf("kvstore %s: spec.storage: %w", kv.Name, err)
	}
	replicas, grace, history, partition := kv.Spec.Replicas, int64(terminationGrace), int32(revisionHistory), int32(0)
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: kv.Namespace, Name: kv.Name, Labels: selector(kv)},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    &replicas,
			ServiceName: kv.Name,
			Selector:    &metav1.LabelSelector{MatchLabels: selector(kv)},
			// kube-apiserver's defaults, written out as many operators do (a replay defaults built-in kinds only when an actor supplies the defaults)
			PodManagementPolicy:  appsv1.OrderedReadyPodManagement,
			RevisionHistoryLimit: &history,
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: &partition}},
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: selector(kv)},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: &grace,
					Containers: []corev1.Container{{
						Name:         "kv",
						Image:        image,
						Ports:        []corev1.ContainerPort{{Name: "kv", ContainerPort: Port}},
						VolumeMounts: []corev1.VolumeMount{{Name: VolumeName, MountPath: "/data"}},
					}},
				},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: VolumeName, Labels: selector(kv)},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
				},
			}},
		},
	}
	if err := controllerutil.SetControllerReference(kv, sts, r.client.Scheme()); err != nil {
		return nil, fmt.Errorf("own statefulset %s: %w", kv.Name, err)
	}
	return sts, nil
}
