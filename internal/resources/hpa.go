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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// cnAutoscaler is the HorizontalPodAutoscaler of CN. As the upstream's, it
// scales the StarRocksCluster's scale subresource (spec.starRocksCnSpec.replicas),
// so that the spec stays the truth and the StatefulSet follows it.
//
// autoScalingPolicy.version (v1, v2beta2, v2) chose the API version the
// upstream wrote it with. An HPA is stored once whatever version writes it;
// v2beta2 is no longer served, and v2 expresses everything v1 and v2beta2
// can, so we write v2 for every version and report the version in status.
//
// minReplicas defaults to 1 (the HPA's own default, written out so the object
// says what it does); 0 is passed through for clusters with HPAScaleToZero. maxReplicas is raised to minReplicas when lower, and to
// at least 1: the CRD rejects such values, but an HPA the API server refuses
// would hold back the whole CN apply.
func cnAutoscaler(src *srv1.StarRocksCluster, policy *srv1.AutoScalingPolicy) *autoscalingv2.HorizontalPodAutoscaler {
	minReplicas := ptr.Deref(policy.MinReplicas, 1)
	maxReplicas := max(policy.MaxReplicas, minReplicas, 1)
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   typeMeta("autoscaling/v2", "HorizontalPodAutoscaler"),
		ObjectMeta: objectMeta(src, ComponentCN, src.CnAutoscalerName()),
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{
				APIVersion: srv1.GroupVersion.String(),
				Kind:       "StarRocksCluster",
				Name:       src.Name,
			},
			MinReplicas: ptr.To(minReplicas),
			MaxReplicas: maxReplicas,
		},
	}
	if p := policy.HPAPolicy; p != nil {
		hpa.Spec.Metrics = p.Metrics
		hpa.Spec.Behavior = p.Behavior
	}
	return hpa
}
