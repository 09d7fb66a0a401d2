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
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// A deleted cluster leaves nothing behind in the process: memory follows
// the clusters there are, not every cluster there ever was.
func TestADeletedClusterIsForgotten(t *testing.T) {
	api := &fakeAPI{}
	src := feCluster()
	r := newReconciler(t, api, src)
	r.FE = newFEAccess(r.Client, nil, fe.TLS{})
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(src)
	cn := types.NamespacedName{Namespace: "ns", Name: src.CnStatefulSetName()}
	_ = r.FE.Changing(src, func() error { return nil }) // the door remembers when FE's topology last changed
	r.cleanups.Put(cn, starrocks.Cleanup{Checked: starrocks.CheckedAt{Known: true, UID: "cn-uid", Replicas: 1}})
	r.status.Recent().Record(key.String(), "5", src.Status) // the fake's status writes return no resourceVersion
	r.regrowing.Put(types.NamespacedName{Namespace: "ns", Name: src.FeStatefulSetName()}, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: src.FeStatefulSetName()}})
	r.scaleIns.Put(types.NamespacedName{Namespace: "ns", Name: src.BeStatefulSetName()}, starrocks.ScaleIn{Active: true})
	if clean := r.cleanups.Len(); r.Applier.Remembered() == 0 || r.status.Recent().Len() == 0 || clean == 0 || !r.FE.Remembers(key) {
		t.Fatalf("nothing remembered after creating the cluster (writes and no-ops %d, status %d, cleanup %d): the test proves nothing",
			r.Applier.Remembered(), r.status.Recent().Len(), clean)
	}

	if err := r.Client.Delete(t.Context(), src); err != nil {
		t.Fatal(err)
	}
	if _, err := reconcileOnce(t, r); err != nil {
		t.Fatal(err)
	}
	if n := r.Applier.Remembered(); n != 0 {
		t.Errorf("the applier still remembers %d objects", n)
	}
	if n := r.status.Recent().Len(); n != 0 {
		t.Errorf("%d statuses still remembered", n)
	}
	if r.FE.Remembers(key) {
		t.Error("FE's features or view still remembered")
	}
	if clean := r.cleanups.Len(); clean != 0 {
		t.Errorf("CN cleanup state still remembered: %d found clean", clean)
	}
	if n := r.scaleIns.Len(); n != 0 {
		t.Error("a scale-in is still remembered")
	}
	if n := r.regrowing.Len(); n != 0 {
		t.Errorf("%d regrowing StatefulSets still remembered", n)
	}
}

// newFEAccess is a door to the FE resolve names.
func newFEAccess(live client.Reader, resolve fe.Resolver, tls fe.TLS) feaccess.Door {
	return feaccess.New(live, feaccess.Options{Resolve: resolve, TLS: tls})
}
