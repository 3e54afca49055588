package actors

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/lwreplay/lwreplay/actor"
)

// ProvisionerName is the volume provisioner's name: the value of the
// annotations pv.kubernetes.io/provisioned-by on the volumes it makes and
// volume.kubernetes.io/storage-provisioner on the claims it binds.
const ProvisionerName = "lwreplay.dev/hostpath"

// ProvisionDelay is how long the volume provisioner takes to provision.
// A claim is bound that long after it became due. So its writes and the
// kubelet stand-in's fall at distinct instants of virtual time.
const ProvisionDelay = 500 * time.Millisecond

// Annotations kube-controller-manager's persistentvolume-binder and an
// external provisioner write (k8s.io/kubernetes pkg/controller/volume/persistentvolume/util).
const (
	annBindCompleted   = "pv.kubernetes.io/bind-completed"
	annBoundByCtrl     = "pv.kubernetes.io/bound-by-controller"
	annProvisionedBy   = "pv.kubernetes.io/provisioned-by"
	annStorageProv     = "volume.kubernetes.io/storage-provisioner"
	annBetaStorageProv = "volume.beta.kubernetes.io/storage-provisioner"
)

// Provisioner returns the actor "volume-provisioner". A
// PersistentVolumeClaim with no bound volume gets a hostPath
// PersistentVolume "pvc-<claim UID>", and both are bound. It does the
// work of an external provisioner and kube-controller-manager's
// persistentvolume-binder together. It acts ProvisionDelay after the
// claim appeared:
//
//   - as the provisioner: the volume, its capacity the claim's request,
//     its access modes, volume mode and storageClassName the claim's, its
//     claimRef the claim, reclaim policy Delete, annotated provisioned-by;
//     the volume deleted once its claim is gone;
//   - as the binder: the volume's status phase Bound; the claim's
//     spec.volumeName and annotations bind-completed, bound-by-controller
//     and storage-provisioner; the claim's status phase Bound, capacity
//     and access modes the volume's.
//
// Every claim is provisioned, whatever its storage class: named, or none.
// (Its volume then names none, and no StorageClass is needed or created.)
// Whatever its volumeBindingMode too: WaitForFirstConsumer is bound at
// once.
func Provisioner() actor.Actor {
	return actor.Actor{
		Name: "volume-provisioner",
		// It makes the PersistentVolumes: a recording's later ones are
		// the recorded provisioner's, dropped.
		Takes: []actor.Takeover{{Resource: schema.GroupResource{Resource: "persistentvolumes"}}},
		Doc: "makes a hostPath PersistentVolume for each unbound PersistentVolumeClaim and binds both, " +
			"as an external provisioner and kube-controller-manager's persistentvolume-binder together (written here)",
		Run: func(ctx context.Context, env actor.Env) error {
			cs, err := clientFor(env, "volume-provisioner")
			if err != nil {
				return err
			}
			return (&provisioner{cs: cs}).run(ctx)
		},
	}
}

// provisioner is one run of the volume provisioner.
type provisioner struct {
	cs      kubernetes.Interface
	claims  corelisters.PersistentVolumeClaimLister
	volumes corelisters.PersistentVolumeLister
	q       *keyQueue
	wait    *delays
}

// run provisions and binds until ctx ends.
func (p *provisioner) run(ctx context.Context) error {
	f := informers.NewSharedInformerFactory(p.cs, 0)
	defer f.Shutdown()
	p.claims = f.Core().V1().PersistentVolumeClaims().Lister()
	p.volumes = f.Core().V1().PersistentVolumes().Lister()
	volumes := f.Core().V1().PersistentVolumes().Informer()
	p.q = newKeyQueue("volume-provisioner")
	p.wait = newDelays(ProvisionDelay)
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			p.q.add(key)
		}
	}
	if _, err := f.Core().V1().PersistentVolumeClaims().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }, DeleteFunc: enqueue,
	}); err != nil {
		return fmt.Errorf("volume-provisioner: handler: %w", err)
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), volumes.HasSynced) {
		return nil // ctx ended
	}
	p.q.run(ctx, p.sync)
	return nil
}

// sync provisions and binds the claim key names, or deletes the volumes
// provisioned for it when it is gone.
func (p *provisioner) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	c, err := p.claims.PersistentVolumeClaims(ns).Get(name)
	if apierrors.IsNotFound(err) {
		p.wait.clear(key)
		return p.reclaim(ctx, ns, name)
	}
	if err != nil {
		return err
	}
	if c.DeletionTimestamp != nil || (c.Spec.VolumeName != "" && c.Status.Phase == corev1.ClaimBound) {
		p.wait.clear(key)
		return nil
	}
	if !p.wait.due(p.q, key, string(c.UID)) {
		return nil
	}
	v, err := p.volume(ctx, c)
	if err != nil {
		return err
	}
	if v.Status.Phase != corev1.VolumeBound {
		v = v.DeepCopy()
		v.Status.Phase = corev1.VolumeBound
		if v, err = p.cs.CoreV1().PersistentVolumes().UpdateStatus(ctx, v, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("volume-provisioner: volume %s status: %w", v.Name, err)
		}
	}
	c = c.DeepCopy()
	if c.Spec.VolumeName == "" || c.Annotations[annBindCompleted] != "yes" {
		c.Spec.VolumeName = v.Name
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[annBindCompleted], c.Annotations[annBoundByCtrl] = "yes", "yes"
		c.Annotations[annStorageProv], c.Annotations[annBetaStorageProv] = ProvisionerName, ProvisionerName
		if c, err = p.cs.CoreV1().PersistentVolumeClaims(ns).Update(ctx, c, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("volume-provisioner: claim %s: %w", key, err)
		}
	}
	c.Status.Phase = corev1.ClaimBound
	c.Status.Capacity = v.Spec.Capacity.DeepCopy()
	c.Status.AccessModes = slices.Clone(v.Spec.AccessModes)
	if _, err := p.cs.CoreV1().PersistentVolumeClaims(ns).UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("volume-provisioner: claim %s status: %w", key, err)
	}
	return nil
}

// volume returns c's volume: the one it names or was provisioned for it,
// made when there is none.
func (p *provisioner) volume(ctx context.Context, c *corev1.PersistentVolumeClaim) (*corev1.PersistentVolume, error) {
	name := c.Spec.VolumeName
	if name == "" {
		name = "pvc-" + string(c.UID)
	}
	if v, err := p.volumes.Get(name); err == nil {
		return v, nil
	}
	v := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{annProvisionedBy: ProvisionerName}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: c.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes: slices.Clone(c.Spec.AccessModes),
			ClaimRef: &corev1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: c.Namespace, Name: c.Name, UID: c.UID,
			},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              ptr.Deref(c.Spec.StorageClassName, ""),
			VolumeMode:                    c.Spec.VolumeMode,
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: "/var/lib/lwreplay/volumes/" + name, Type: ptr.To(corev1.HostPathDirectoryOrCreate),
			}},
		},
	}
	out, err := p.cs.CoreV1().PersistentVolumes().Create(ctx, v, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		out, err = p.cs.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("volume-provisioner: volume %s: %w", name, err)
	}
	return out, nil
}

// reclaim deletes the volumes provisioned for the claim ns/name, gone:
// reclaim policy Delete, as the provisioner does once the binder has
// released them. Their names are taken in order.
func (p *provisioner) reclaim(ctx context.Context, ns, name string) error {
	vs, _ := p.volumes.List(labels.Everything())
	var names []string
	for _, v := range vs {
		r := v.Spec.ClaimRef
		if r != nil && r.Namespace == ns && r.Name == name && v.Annotations[annProvisionedBy] == ProvisionerName &&
			v.Spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimDelete && v.DeletionTimestamp == nil {
			names = append(names, v.Name)
		}
	}
	slices.Sort(names)
	var errs []error
	for _, n := range names {
		if err := p.cs.CoreV1().PersistentVolumes().Delete(ctx, n, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("volume-provisioner: delete volume %s: %w", n, err))
		}
	}
	return errors.Join(errs...)
}
