package actors

import (
	"context"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// sync moves the pod key names one stage on.
func (k *kubelet) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	p, err := k.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) || p == nil || p.Spec.NodeName == "" {
		return nil
	}
	if err != nil {
		return err
	}
	if p.DeletionTimestamp != nil {
		k.wait.clear(key)
		return k.deletePod(ctx, key, p)
	}
	done := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
	running := p.Status.Phase == corev1.PodRunning && podReady(p)
	if done || (running && !ownedByJob(p)) {
		k.wait.clear(key)
		return nil
	}
	if !k.wait.due(k.q, key, string(p.UID)) {
		return nil
	}
	now := metav1.Now()
	var st corev1.PodStatus
	if running {
		st = completedStatus(p, now)
	} else {
		st = k.runningStatus(ctx, p, now)
	}
	p = p.DeepCopy()
	p.Status = st
	if _, err := k.cs.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("kubelet: pod %s status: %w", key, err)
	}
	return nil
}

// deletePod deletes p with gracePeriodSeconds=0 once its deletionTimestamp
// (the end of its grace period) has passed, and checks again then if not.
// A pod already asked (grace period 0) waits for its finalizers.
func (k *kubelet) deletePod(ctx context.Context, key string, p *corev1.Pod) error {
	if g := p.DeletionGracePeriodSeconds; g != nil && *g == 0 {
		return nil
	}
	if wait := time.Until(p.DeletionTimestamp.Time); wait > 0 {
		k.q.addAfter(key, wait)
		return nil
	}
	err := k.cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To[int64](0),
		Preconditions:      &metav1.Preconditions{UID: &p.UID},
	})
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return fmt.Errorf("kubelet: delete pod %s: %w", key, err)
}

// runningStatus is p's status once kwok's pod-ready stage ran: Running,
// every container running and ready (init containers completed, or
// running when they are sidecars), its conditions True, its IPs set.
func (k *kubelet) runningStatus(ctx context.Context, p *corev1.Pod, now metav1.Time) corev1.PodStatus {
	st := *p.Status.DeepCopy()
	st.Phase = corev1.PodRunning
	if st.StartTime == nil {
		st.StartTime = &now
	}
	host := k.hostIP(ctx, p.Spec.NodeName)
	st.HostIP, st.HostIPs = host, []corev1.HostIP{{IP: host}}
	ip := podIP(p.Namespace, p.Name)
	if p.Spec.HostNetwork {
		ip = host
	}
	st.PodIP, st.PodIPs = ip, []corev1.PodIP{{IP: ip}}
	for _, t := range []corev1.PodConditionType{corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		setCondition(&st, t, corev1.ConditionTrue, "", now)
	}
	for _, g := range p.Spec.ReadinessGates {
		setCondition(&st, g.ConditionType, corev1.ConditionTrue, "", now)
	}
	running := func(c corev1.Container) corev1.ContainerStatus {
		return corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image, ContainerID: "kwok://" + c.Name,
			Ready: true, Started: ptr.To(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		}
	}
	st.InitContainerStatuses = nil
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			st.InitContainerStatuses = append(st.InitContainerStatuses, running(c))
			continue
		}
		st.InitContainerStatuses = append(st.InitContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image, ContainerID: "kwok://" + c.Name, Ready: true, Started: ptr.To(false),
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now,
			}},
		})
	}
	st.ContainerStatuses = nil
	for _, c := range p.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, running(c))
	}
	return st
}

// completedStatus is p's status once kwok's pod-complete stage ran:
// Succeeded, or Failed when ExitCodeAnnotation names a code other than
// 0. Every container terminated with that code. Ready and
// ContainersReady turn False (reason PodCompleted), as the kubelet sets.
func completedStatus(p *corev1.Pod, now metav1.Time) corev1.PodStatus {
	code, _ := strconv.Atoi(p.Annotations[ExitCodeAnnotation])
	st := *p.Status.DeepCopy()
	reason := "Completed"
	st.Phase = corev1.PodSucceeded
	if code != 0 {
		st.Phase, reason = corev1.PodFailed, "Error"
	}
	for _, t := range []corev1.PodConditionType{corev1.ContainersReady, corev1.PodReady} {
		setCondition(&st, t, corev1.ConditionFalse, "PodCompleted", now)
	}
	for i, c := range st.ContainerStatuses {
		started := now
		if c.State.Running != nil {
			started = c.State.Running.StartedAt
		}
		st.ContainerStatuses[i].Ready, st.ContainerStatuses[i].Started = false, ptr.To(false)
		st.ContainerStatuses[i].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: int32(code), Reason: reason, StartedAt: started, FinishedAt: now,
		}}
	}
	return st
}

// setCondition sets st's condition t to s, its transition time now when
// its status changes.
func setCondition(st *corev1.PodStatus, t corev1.PodConditionType, s corev1.ConditionStatus, reason string, now metav1.Time) {
	for i, c := range st.Conditions {
		if c.Type != t {
			continue
		}
		if c.Status != s {
			st.Conditions[i].LastTransitionTime = now
		}
		st.Conditions[i].Status, st.Conditions[i].Reason, st.Conditions[i].Message = s, reason, ""
		return
	}
	st.Conditions = append(st.Conditions, corev1.PodCondition{Type: t, Status: s, Reason: reason, LastTransitionTime: now})
}

// podReady reports whether p's Ready condition is True.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// ownedByJob reports whether a Job owns p (kwok's pod-complete selector).
func ownedByJob(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "Job" {
			return true
		}
	}
	return false
}

// hostIP is the InternalIP node reports, or its kwok-node-N address
// while the node is not known yet.
func (k *kubelet) hostIP(ctx context.Context, node string) string {
	for i := range k.cfg.Nodes {
		if NodeName(i) == node {
			return nodeIP(i)
		}
	}
	if n, err := k.cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err == nil {
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				return a.Address
			}
		}
	}
	return nodeIP(0)
}
