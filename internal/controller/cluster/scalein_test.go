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
	"context"
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
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

// A scale-down is decided on the API server's StatefulSet: the cache may
// still hold FE at 5 after the operator wrote 4, and a hold that keeps
// "the replicas it runs" would write 5 back (the StatefulSet replicas of
// TestScaleInWithoutDataLoss' leader-killed case went 5, 4, 5, 4, 3 once,
// and fe-4 was dropped twice). Outside a scale-down the cache's copy
// stands, read from nothing else.
func TestScaleDownDecidedOnTheAPIServersReplicas(t *testing.T) {
	sts := func(replicas int32, uid string) *appsv1.StatefulSet {
		s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sr-fe", UID: types.UID(uid)}}
		s.Spec.Replicas = ptr.To(replicas)
		return s
	}
	cached, want := sts(5, "u1"), sts(3, "")
	for _, c := range []struct {
		name   string
		api    *appsv1.StatefulSet
		want   *appsv1.StatefulSet
		reads  int
		expect int32
	}{
		{"a scale-down, the cache behind the operator's own step: the API server's 4", sts(4, "u1"), want, 1, 4},
		{"a scale-down, the StatefulSet made again under the name: the cache's", sts(4, "u2"), want, 1, 5},
		{"a scale-down, the read failing: the cache's", nil, want, 1, 5},
		{"no scale-down: the cache's, nothing read", sts(4, "u1"), sts(5, ""), 0, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			var objs []client.Object
			if c.api != nil {
				objs = append(objs, c.api)
			}
			reads := 0
			api := fake.NewClientBuilder().WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
				Get: func(ctx context.Context, cl client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					reads++
					return cl.Get(ctx, key, obj, opts...)
				}}).Build()
			r := &Reconciler{FE: newFEAccess(api, nil, fe.TLS{})}
			got := r.scaleDownLive(context.Background(), cached, c.want)
			if *got.Spec.Replicas != c.expect || reads != c.reads {
				t.Errorf("decided on %d replicas after %d reads, want %d after %d", *got.Spec.Replicas, reads, c.expect, c.reads)
			}
		})
	}
}
