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
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

func TestCNAutoscaler(t *testing.T) {
	metrics := []autoscalingv2.MetricSpec{{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{Name: "cpu", Target: autoscalingv2.MetricTarget{
			Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(int32(60)),
		}},
	}}
	disabled := autoscalingv2.DisabledPolicySelect
	behavior := &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{SelectPolicy: &disabled}}

	tests := []struct {
		name            string
		policy          *srv1.AutoScalingPolicy
		replicas        *int32
		wantHPA         bool
		wantMin         int32
		wantMax         int32
		wantStsReplicas *int32
	}{
		{"no autoScalingPolicy: no HPA, replicas from the spec", nil, ptr.To(int32(4)), false, 0, 0, ptr.To(int32(4))},
		{"autoScalingPolicy: HPA, and the StatefulSet follows the spec the HPA scales", &srv1.AutoScalingPolicy{MinReplicas: ptr.To(int32(2)), MaxReplicas: 10,
			HPAPolicy: &srv1.HPAPolicy{Metrics: metrics, Behavior: behavior}}, ptr.To(int32(4)), true, 2, 10, ptr.To(int32(4))},
		{"minReplicas defaults to 1", &srv1.AutoScalingPolicy{MaxReplicas: 3}, nil, true, 1, 3, ptr.To(int32(1))},
		{"maxReplicas below minReplicas is raised to it", &srv1.AutoScalingPolicy{MinReplicas: ptr.To(int32(5)), MaxReplicas: 2}, nil, true, 5, 5, ptr.To(int32(1))},
		{"version v1 is written as v2 too", &srv1.AutoScalingPolicy{Version: "v1", MaxReplicas: 3}, nil, true, 1, 3, ptr.To(int32(1))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newCluster()
			src.Spec.StarRocksCnSpec.AutoScalingPolicy = tt.policy
			src.Spec.StarRocksCnSpec.Replicas = tt.replicas
			objs := CN(src, Config{}).Objects()
			s := find[*appsv1.StatefulSet](t, objs, "sr-cn")
			if !reflect.DeepEqual(s.Spec.Replicas, tt.wantStsReplicas) {
				t.Errorf("StatefulSet replicas %v, want %v", ptr.Deref(s.Spec.Replicas, -1), ptr.Deref(tt.wantStsReplicas, -1))
			}
			var hpa *autoscalingv2.HorizontalPodAutoscaler
			for _, o := range objs {
				if h, ok := o.(*autoscalingv2.HorizontalPodAutoscaler); ok {
					hpa = h
				}
			}
			if (hpa != nil) != tt.wantHPA {
				t.Fatalf("HPA present %v, want %v", hpa != nil, tt.wantHPA)
			}
			if hpa == nil {
				return
			}
			// The cluster's scale subresource, as the upstream's HPA.
			want := autoscalingv2.CrossVersionObjectReference{APIVersion: "starrocks.com/v1", Kind: "StarRocksCluster", Name: "sr"}
			if hpa.Name != "sr-cn-autoscaler" || hpa.Spec.ScaleTargetRef != want {
				t.Errorf("HPA %s targets %+v", hpa.Name, hpa.Spec.ScaleTargetRef)
			}
			if ptr.Deref(hpa.Spec.MinReplicas, -1) != tt.wantMin || hpa.Spec.MaxReplicas != tt.wantMax {
				t.Errorf("min %d max %d", ptr.Deref(hpa.Spec.MinReplicas, -1), hpa.Spec.MaxReplicas)
			}
			if tt.policy.HPAPolicy != nil && (!reflect.DeepEqual(hpa.Spec.Metrics, metrics) || !reflect.DeepEqual(hpa.Spec.Behavior, behavior)) {
				t.Errorf("metrics %+v behavior %+v", hpa.Spec.Metrics, hpa.Spec.Behavior)
			}
			if errs := validate(hpa); len(errs) > 0 {
				t.Errorf("invalid: %v", errs)
			}
		})
	}
}
