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

package cluster

import (
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

func TestScaleInMessagesNameTheSkipAnnotation(t *testing.T) {
	reads := starrocks.Reads{Report: &starrocks.Report{Err: errors.New("dial timeout")}}
	reads.Read.Report = true
	st, _ := starrocks.ScaleInBackends(starrocks.BackendScaleIn{Exists: true, From: 3, To: 2, FEReady: true}, starrocks.ScaleIn{}, reads)
	if len(st.Holds) != 1 || !strings.Contains(st.Holds[0].Message, srv1.SkipDecommissionAnnotation+"=true") {
		t.Errorf("holds %+v, want the way out named %s", st.Holds, srv1.SkipDecommissionAnnotation)
	}
}

// Issue 34 item 1: an adopted StatefulSet keeps its own serviceName, and
// its pods register with FE under it.
func TestScaleInNamesPodsAsTheLiveStatefulSetRunsThem(t *testing.T) {
	src := &srv1.StarRocksCluster{}
	src.Name, src.Namespace = "sr", "ns"
	live := &appsv1.StatefulSet{}
	live.Name, live.Spec.ServiceName = "sr-be", "legacy-be-svc"
	names := liveNames(src, resources.ComponentBE, live)
	if ord, ok := names.Ordinal("sr-be-2.legacy-be-svc.ns.svc.cluster.local"); !ok || ord != 2 {
		t.Errorf("sr-be-2 under the live serviceName: ordinal %d, %t; want 2", ord, ok)
	}
	if names := liveNames(src, resources.ComponentBE, nil); names.HeadlessService != src.BeSearchServiceName() {
		t.Errorf("without a live StatefulSet the service is %q, want the spec's %q", names.HeadlessService, src.BeSearchServiceName())
	}
}

// FE's refusal of a BE scale-in holds until the BE spec changes: a change
// elsewhere in the cluster (a CN autoscaler's step, a Service annotation)
// bumps the generation but asks nothing new of FE.
func TestARefusalHoldsForTheComponentsSpec(t *testing.T) {
	src := beCluster("starrocks/be-ubuntu:3.3.2")
	src.Spec.StarRocksBeSpec.Replicas = new(int32(2))
	refused := specKey(src, resources.ComponentBE)

	elsewhere := src.DeepCopy()
	elsewhere.Generation++
	elsewhere.Spec.StarRocksFeSpec.Service = &srv1.StarRocksService{Annotations: map[string]string{"a": "b"}}
	if specKey(elsewhere, resources.ComponentBE) != refused {
		t.Error("after a change to FE's Service the BE spec reads as another: the refused scale-in is asked again")
	}
	be := src.DeepCopy()
	be.Spec.StarRocksBeSpec.Replicas = new(int32(3))
	if specKey(be, resources.ComponentBE) == refused {
		t.Error("after a BE spec change the refusal still holds: the scale-in is never asked again")
	}
}
