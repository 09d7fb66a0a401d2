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

package resources

import (
	appsv1 "k8s.io/api/apps/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// A PodDisruptionBudget limits how many pods of FE, BE or CN a voluntary
// eviction (a node drain, a Karpenter consolidation) may take at once. Every
// budget is a maxUnavailable: the disruption controller counts it against
// the replicas the StatefulSet runs, so a budget stays right while an HPA
// changes them. A component of one replica gets none: a budget could only
// protect nothing or block every drain. See docs/disruption-budgets.md.

// DisruptionBudgetOff reports whether annotations turn c's budget off.
func DisruptionBudgetOff(annotations map[string]string, c Component) bool {
	return annotations[srv1.DisruptionBudgetAnnotation] == "false" || annotations[srv1.ComponentDisruptionBudgetAnnotation(string(c))] == "false"
}

// DisruptionBudget is the budget of component c (FE, BE or CN) when its
// StatefulSet runs replicas pods; nil when it gets none. The builders make
// it for the spec's replicas; the controller asks again for the replicas a
// StatefulSet keeps, while a scale-in waits for FE to let pods go or FE is
// kept from shrinking to one (KeepFEQuorum): pods that run keep a budget.
func DisruptionBudget(src *srv1.StarRocksCluster, c Component, replicas int32) *policyv1.PodDisruptionBudget {
	switch c {
	case ComponentFE:
		return disruptionBudget(src, c, src.FeDisruptionBudgetName(), feMaxUnavailable(replicas))
	case ComponentBE:
		return disruptionBudget(src, c, src.BeDisruptionBudgetName(), beMaxUnavailable(replicas))
	case ComponentCN:
		if src.Spec.StarRocksCnSpec == nil {
			return nil
		}
		spec := *src.Spec.StarRocksCnSpec
		spec.Replicas = &replicas
		return disruptionBudget(src, c, src.CnDisruptionBudgetName(), cnMaxUnavailable(&spec))
	}
	return nil
}

// FEStepDisruptionBudget is FE's budget while a member leaves FE's group:
// staying are the members that stay. Between the DROP and the pod's
// removal the dropped pod still runs and counts as a healthy pod, so a
// budget of the StatefulSet's pods would let a drain take the majority of
// those that stay (3 → 2: one of the two). It keeps their majority, with
// no floor: of 2, none may go, for the length of the step.
func FEStepDisruptionBudget(src *srv1.StarRocksCluster, staying int32) *policyv1.PodDisruptionBudget {
	return disruptionBudget(src, ComponentFE, src.FeDisruptionBudgetName(), ptr.To(intstr.FromInt32(max(0, (staying-1)/2))))
}

// FEStepBudgetLowered reports whether live, FE's budget as the API holds
// it, allows no more than FEStepDisruptionBudget(src, staying): a drain
// can then take no FE that stays while another leaves FE's group. True
// when FE gets no budget (turned off: the user's choice), false when the
// budget FE should have is not there or allows more, or is not an integer.
func FEStepBudgetLowered(src *srv1.StarRocksCluster, live *policyv1.PodDisruptionBudget, staying int32) bool {
	want := FEStepDisruptionBudget(src, staying)
	if want == nil {
		return true
	}
	if live == nil || live.Spec.MaxUnavailable == nil || live.Spec.MaxUnavailable.Type != intstr.Int || live.Spec.MinAvailable != nil {
		return false
	}
	return live.Spec.MaxUnavailable.IntVal <= want.Spec.MaxUnavailable.IntVal
}

// BERolloutDisruptionBudget is BE's budget while a gated BE rollout waits
// for FE to count every tablet healthy again: no BE may go. A BE just
// replaced is catching up (or FE is still placing replicas it lost), so
// another BE evicted now takes the second copy of the tablets they share
// (issue 34 item 26). The rollout's stall timeout bounds it: a rollout
// stalled that long gets the usual budget back, and a drain goes on.
func BERolloutDisruptionBudget(src *srv1.StarRocksCluster) *policyv1.PodDisruptionBudget {
	return disruptionBudget(src, ComponentBE, src.BeDisruptionBudgetName(), ptr.To(intstr.FromInt32(0)))
}

// feMaxUnavailable keeps a majority of FE, whose pods are all followers:
// the metadata's quorum. Of n, (n-1)/2 may go: 1 of 3 or 4, 2 of 5. Of 2 the
// majority is both, and a budget keeping it would block every drain for
// ever: one may go, and the FEQuorumUnprotected condition says what that
// costs (FEQuorumUnprotectedMessage).
func feMaxUnavailable(replicas int32) *intstr.IntOrString {
	if replicas <= 1 {
		return nil
	}
	return ptr.To(intstr.FromInt32(max(1, (replicas-1)/2)))
}

// beMaxUnavailable lets one BE go at a time: each holds tablet replicas (3
// by default), and a load needs a majority of a tablet's: two BE down at
// once can stop loads into the tablets they share.
func beMaxUnavailable(replicas int32) *intstr.IntOrString {
	if replicas <= 1 {
		return nil
	}
	return ptr.To(intstr.FromInt32(1))
}

// cnMaxUnavailable lets as many CN go as a rolling update may take down
// (updateStrategy.rollingUpdate.maxUnavailable, which the upstream chart's
// maxUnavailablePods sets), one when unset. Under an HPA the budget is
// decided by the most pods it may run, not by how many run now: it then
// stays the same object while the HPA scales, and with one pod running a
// maxUnavailable of at least one blocks nothing.
func cnMaxUnavailable(spec *srv1.StarRocksCnSpec) *intstr.IntOrString {
	most := ptr.Deref(spec.Replicas, 1)
	if p := spec.AutoScalingPolicy; p != nil {
		most = max(most, p.MaxReplicas, ptr.Deref(p.MinReplicas, 1))
	}
	if most <= 1 {
		return nil
	}
	return ptr.To(rollingMaxUnavailable(spec.UpdateStrategy))
}

// rollingMaxUnavailable is a rolling update's maxUnavailable, a count or a
// percentage; 1 when unset, when it allows no pod (a budget would then block
// every drain) or when Kubernetes could not read it in a budget.
func rollingMaxUnavailable(u *appsv1.StatefulSetUpdateStrategy) intstr.IntOrString {
	one := intstr.FromInt32(1)
	if u == nil || u.RollingUpdate == nil || u.RollingUpdate.MaxUnavailable == nil {
		return one
	}
	v := *u.RollingUpdate.MaxUnavailable
	n, err := intstr.GetScaledValueFromIntOrPercent(&v, 100, true)
	if err != nil || n < 1 || (v.Type == intstr.String && n > 100) {
		return one
	}
	return v
}

// disruptionBudget is component c's budget allowing maxUnavailable pods to
// go; nil when maxUnavailable is, or the cluster's annotations turn it off.
// It selects the pods as the StatefulSet does.
func disruptionBudget(src *srv1.StarRocksCluster, c Component, name string, maxUnavailable *intstr.IntOrString) *policyv1.PodDisruptionBudget {
	if maxUnavailable == nil || DisruptionBudgetOff(src.Annotations, c) {
		return nil
	}
	return &policyv1.PodDisruptionBudget{
		TypeMeta:   typeMeta("policy/v1", "PodDisruptionBudget"),
		ObjectMeta: objectMeta(src, c, name),
		Spec: policyv1.PodDisruptionBudgetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: SelectorLabels(src, c)},
			MaxUnavailable: maxUnavailable,
			// A pod that is not ready serves nothing: evicting it costs no
			// availability, and a crashing pod must not block a drain.
			UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
		},
	}
}

// FEQuorumUnprotectedMessage says what a drain costs an FE of replicas pods
// whose majority no budget can keep (2: the majority is both); empty for
// other replica counts. budget names FE's budget, empty when turned off.
func FEQuorumUnprotectedMessage(replicas int32, budget string) string {
	if replicas != 2 {
		return ""
	}
	const cost = "FE runs 2 replicas, and StarRocks' metadata needs a majority of them, both: while one is down, metadata changes (DDL, loads) stop"
	if budget == "" {
		return cost + "; FE's PodDisruptionBudget is turned off by annotation, so evictions are not limited. Run 3 FE to keep a majority through a node drain"
	}
	return cost + "; PodDisruptionBudget " + budget + " lets one FE pod be evicted at a time, so that node drains are never blocked for ever. Run 3 FE to keep a majority through a node drain"
}
