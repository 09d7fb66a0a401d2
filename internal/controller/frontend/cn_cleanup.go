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

package frontend

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// ComputeNodes is the compute-node cleanup's input (starrocks.CleanUpComputeNodes)
// for the CN StatefulSet of that name, as it runs (nil: not there), whose
// pods register with FE under <pod>.<searchService>.<namespace>: the
// cluster's CN or a warehouse's. FE's report is read again every every.
func ComputeNodes(sts *appsv1.StatefulSet, name, namespace, searchService string, every time.Duration) starrocks.ComputeNodeCleanup {
	in := starrocks.ComputeNodeCleanup{Names: starrocks.PodNames{StatefulSet: name, HeadlessService: searchService, Namespace: namespace}, Every: every, Now: time.Now()}
	if sts != nil && sts.Spec.Replicas != nil {
		in.Exists, in.UID, in.Replicas, in.Running = true, sts.UID, *sts.Spec.Replicas, sts.Status.Replicas
		in.Generation, in.ObservedGeneration = sts.Generation, sts.Status.ObservedGeneration
	}
	return in
}
