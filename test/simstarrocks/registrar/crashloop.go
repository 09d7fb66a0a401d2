/*
Copyright 2026 The srscale authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package registrar

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
)

// The kubelet's restart back-off: 10 s, doubled after each exit, at most
// 300 s (kubernetes pkg/kubelet: backOffPeriod and MaxContainerBackOff).
const (
	crashBackOff    = 10 * time.Second
	maxCrashBackOff = 300 * time.Second
)

// crashLoop is what the kubelet does when a container's process exits 1
// (an entrypoint that gives up; an FE dropped from the group that starts on
// its old metadata and exits, "current node is not added to the cluster,
// will exit" or BDBJE's "explicitly removed", sheet §14): the pod is not
// Ready, the container waits in CrashLoopBackOff, and after the back-off it
// starts again (restartCount + 1), when its entrypoint runs again. kwok
// marks a pod Ready once and never looks at it again, so the registrar
// writes these conditions itself; the caller does not hold r.mu.
func (r *Registrar) crashLoop(key types.NamespacedName, st *podState, gen int) {
	r.mu.Lock()
	if r.stopped || st.gen != gen || st.terminating {
		r.mu.Unlock()
		return
	}
	st.crashes++
	st.crashed = true
	backOff := crashBackOff << min(st.crashes-1, 5)
	backOff = min(backOff, maxCrashBackOff)
	uid := st.uid
	r.logf(key, "container exited 1: not Ready, CrashLoopBackOff %s", backOff)
	r.mu.Unlock()

	r.patchStatus(key, uid, crashed)
	r.scripts.Add(1)
	go func() {
		defer r.scripts.Done()
		t := time.NewTimer(backOff)
		defer t.Stop()
		select {
		case <-r.ctx.Done():
			return
		case <-t.C:
		}
		r.mu.Lock()
		current := st.gen == gen && !st.terminating
		r.mu.Unlock()
		if current {
			r.patchStatus(key, uid, restarted)
		}
	}()
}

// crashed: the container exited; the pod is not Ready.
func crashed(p *corev1.Pod, c *corev1.ContainerStatus) {
	now := metav1.Now()
	setCondition(p, corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady")
	setCondition(p, corev1.ContainersReady, corev1.ConditionFalse, "ContainersNotReady")
	c.Ready = false
	c.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: now}}
	c.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
}

// restarted: the kubelet started the container again; not Ready until its
// process runs.
func restarted(_ *corev1.Pod, c *corev1.ContainerStatus) {
	c.RestartCount++
	c.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}
}

// markReady: the readiness probe passes.
func markReady(p *corev1.Pod, c *corev1.ContainerStatus) {
	setCondition(p, corev1.PodReady, corev1.ConditionTrue, "")
	setCondition(p, corev1.ContainersReady, corev1.ConditionTrue, "")
	c.Ready = true
}

func setCondition(p *corev1.Pod, t corev1.PodConditionType, status corev1.ConditionStatus, reason string) {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			if p.Status.Conditions[i].Status != status {
				p.Status.Conditions[i].LastTransitionTime = metav1.Now()
			}
			p.Status.Conditions[i].Status, p.Status.Conditions[i].Reason = status, reason
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: t, Status: status, Reason: reason, LastTransitionTime: metav1.Now()})
}

// patchStatus changes the main container's status of pod key if it is
// still the pod uid; a failure is logged (the pod may be gone).
func (r *Registrar) patchStatus(key types.NamespacedName, uid types.UID, change func(*corev1.Pod, *corev1.ContainerStatus)) {
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	pods := r.kube.CoreV1().Pods(key.Namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := pods.Get(ctx, key.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.UID != uid || p.DeletionTimestamp != nil {
			return nil
		}
		f, ok := factsOf(p)
		if !ok {
			return nil
		}
		for i := range p.Status.ContainerStatuses {
			if p.Status.ContainerStatuses[i].Name == f.container.Name {
				change(p, &p.Status.ContainerStatuses[i])
			}
		}
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})
	if err != nil && r.ctx.Err() == nil {
		r.mu.Lock()
		r.logf(key, "pod status not written: %v", err)
		r.mu.Unlock()
	}
}

// resolve is the cluster's DNS for a pod's `hostname -f`: its IP.
func (r *Registrar) resolve(name string) (string, bool) {
	for _, obj := range r.informer.Core().V1().Pods().Informer().GetStore().List() {
		p, ok := obj.(*corev1.Pod)
		if ok && p.Status.PodIP != "" && p.DeletionTimestamp == nil && hostnameF(p, r.opts.dnsDomain()) == name {
			return p.Status.PodIP, true
		}
	}
	return "", false
}
