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

package reliability_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

func keyOf(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }

// expectedChildren are the objects an FE-only cluster owns, by kind/name.
func expectedChildren(src *srv1.StarRocksCluster) []string {
	out := []string{"StatefulSet/" + src.FeStatefulSetName(), "Service/" + src.FeServiceName(), "Service/" + src.FeSearchServiceName()}
	sort.Strings(out)
	return out
}

// child is what the checks need of an owned object.
type child struct {
	kindName string
	meta     metav1.ObjectMeta
	sts      *appsv1.StatefulSet
}

// divergence lists why the clusters of ns are not (yet) converged: for each
// cluster, its observedGeneration must equal its generation, it must own
// exactly its expected children (counted by owner label and by owner
// reference), and the FE StatefulSet must carry the latest spec (replicas,
// SPEC_VERSION, image). Children whose owner is gone, or that no cluster
// expects, are orphans. An empty result means converged.
func divergence(ctx context.Context, c client.Client, ns string, want int) ([]string, error) {
	var clusters srv1.StarRocksClusterList
	if err := c.List(ctx, &clusters, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	var stss appsv1.StatefulSetList
	if err := c.List(ctx, &stss, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	var svcs corev1.ServiceList
	if err := c.List(ctx, &svcs, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	var children []child
	for i := range stss.Items {
		children = append(children, child{"StatefulSet/" + stss.Items[i].Name, stss.Items[i].ObjectMeta, &stss.Items[i]})
	}
	for i := range svcs.Items {
		children = append(children, child{"Service/" + svcs.Items[i].Name, svcs.Items[i].ObjectMeta, nil})
	}

	var problems []string
	if len(clusters.Items) != want {
		problems = append(problems, fmt.Sprintf("%d clusters exist, want %d", len(clusters.Items), want))
	}
	byName := map[string]*srv1.StarRocksCluster{}
	byUID := map[types.UID]*srv1.StarRocksCluster{}
	for i := range clusters.Items {
		src := &clusters.Items[i]
		byName[src.Name], byUID[src.UID] = src, src
	}
	labelled := map[string][]string{}
	owned := map[types.UID][]child{}
	for _, ch := range children {
		if cl, ok := ch.meta.Labels[resources.ClusterLabel]; ok {
			labelled[cl] = append(labelled[cl], ch.kindName)
		}
		ref := metav1.GetControllerOfNoCopy(&ch.meta)
		if ref == nil || byUID[ref.UID] == nil {
			problems = append(problems, fmt.Sprintf("orphan %s (controller %v)", ch.kindName, ref))
			continue
		}
		owned[ref.UID] = append(owned[ref.UID], ch)
	}
	for name := range labelled {
		if byName[name] == nil {
			problems = append(problems, fmt.Sprintf("orphans %v labelled for missing cluster %s", labelled[name], name))
		}
	}
	for _, src := range clusters.Items {
		want := expectedChildren(&src)
		if got := sorted(labelled[src.Name]); !slices.Equal(got, want) {
			problems = append(problems, fmt.Sprintf("%s: children by label %v, want %v", src.Name, got, want))
		}
		var names []string
		var sts *appsv1.StatefulSet
		for _, ch := range owned[src.UID] {
			names = append(names, ch.kindName)
			if ch.sts != nil {
				sts = ch.sts
			}
		}
		if got := sorted(names); !slices.Equal(got, want) {
			problems = append(problems, fmt.Sprintf("%s: children by owner reference %v, want %v", src.Name, got, want))
		}
		if src.Status.ObservedGeneration != src.Generation {
			problems = append(problems, fmt.Sprintf("%s: observedGeneration %d, generation %d", src.Name, src.Status.ObservedGeneration, src.Generation))
		}
		if sts != nil {
			if p := stsDiffers(&src, sts); p != "" {
				problems = append(problems, src.Name+": "+p)
			}
		}
	}
	sort.Strings(problems)
	return problems, nil
}

func sorted(s []string) []string { s = slices.Clone(s); sort.Strings(s); return s }

// stsDiffers says how the FE StatefulSet differs from the cluster's latest spec.
func stsDiffers(src *srv1.StarRocksCluster, sts *appsv1.StatefulSet) string {
	fe := src.Spec.StarRocksFeSpec
	if sts.Spec.Replicas == nil || *sts.Spec.Replicas != *fe.Replicas {
		return fmt.Sprintf("FE replicas %v, spec %d", sts.Spec.Replicas, *fe.Replicas)
	}
	var container *corev1.Container
	for i := range sts.Spec.Template.Spec.Containers {
		if sts.Spec.Template.Spec.Containers[i].Name == "fe" {
			container = &sts.Spec.Template.Spec.Containers[i]
		}
	}
	if container == nil {
		return "FE StatefulSet has no fe container"
	}
	if container.Image != fe.Image {
		return fmt.Sprintf("FE image %s, spec %s", container.Image, fe.Image)
	}
	wantVersion := fe.FeEnvVars[0].Value
	for _, e := range container.Env {
		if e.Name == "SPEC_VERSION" {
			if e.Value != wantVersion {
				return fmt.Sprintf("FE SPEC_VERSION %s, spec %s", e.Value, wantVersion)
			}
			return ""
		}
	}
	return "FE container lacks SPEC_VERSION"
}

// waitConverged polls divergence every 250 ms from now until it is empty and
// returns how long that took, or fails the test after timeout with the
// remaining problems.
func waitConverged(t *testing.T, c *testcluster.Cluster, ns string, want int, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	var last []string
	nextLog := 5 * time.Second
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		problems, err := divergence(ctx, c.Client, ns, want)
		cancel()
		if err == nil && len(problems) == 0 {
			return time.Since(start)
		}
		if err != nil {
			last = []string{err.Error()}
		} else {
			last = problems
		}
		if time.Since(start) >= nextLog {
			nextLog += 5 * time.Second
			if len(last) > 0 {
				t.Logf("after %s: %d divergences, e.g. %s", time.Since(start).Round(time.Second), len(last), last[0])
			}
		}
		if time.Since(start) > timeout {
			if len(last) > 20 {
				last = append(last[:20], fmt.Sprintf("... and %d more", len(last)-20))
			}
			t.Fatalf("not converged %s after the fault ended:\n%s", timeout, strings.Join(last, "\n"))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// ledger watches the children of a namespace through an informer (which
// re-lists after a broken watch, so an API server restart loses nothing) and
// records every UID seen per name and every deletion: an object created twice
// shows up as a second UID or a deletion.
type ledger struct {
	mu      sync.Mutex
	uids    map[string][]types.UID
	deleted []string
}

func startLedger(t *testing.T, c *testcluster.Cluster, ns string) *ledger {
	t.Helper()
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	l := &ledger{uids: map[string][]types.UID{}}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	for kind, inf := range map[string]cache.SharedIndexInformer{
		"StatefulSet": factory.Apps().V1().StatefulSets().Informer(),
		"Service":     factory.Core().V1().Services().Informer(),
	} {
		_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { l.saw(kind, obj) },
			UpdateFunc: func(_, obj any) { l.saw(kind, obj) },
			DeleteFunc: func(obj any) {
				if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
					obj = tomb.Obj
				}
				if o, ok := obj.(metav1.Object); ok {
					l.mu.Lock()
					l.deleted = append(l.deleted, kind+"/"+o.GetName())
					l.mu.Unlock()
				}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); factory.Shutdown() })
	factory.Start(stop)
	factory.WaitForCacheSync(stop)
	return l
}

func (l *ledger) saw(kind string, obj any) {
	o, ok := obj.(metav1.Object)
	if !ok {
		return
	}
	key := kind + "/" + o.GetName()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !slices.Contains(l.uids[key], o.GetUID()) {
		l.uids[key] = append(l.uids[key], o.GetUID())
	}
}

// recreated lists the objects deleted, or seen under more than one UID.
func (l *ledger) recreated() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.deleted)
	for key, uids := range l.uids {
		if len(uids) > 1 {
			out = append(out, fmt.Sprintf("%s has had UIDs %v", key, uids))
		}
	}
	sort.Strings(out)
	return out
}

func (l *ledger) objects() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.uids)
}

// objectsBy is objects() once it reaches want, or what it is at timeout:
// the ledger is an informer of the API server the faults restart, whose
// watch may come back after the namespace converged (seen: 38 of 39 right
// after a kube-apiserver restart under load; the next list brings the
// last one).
func (l *ledger) objectsBy(want int, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for {
		n := l.objects()
		if n >= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// snapshotUIDs returns the UIDs of the namespace's StatefulSets and Services by kind/name.
func snapshotUIDs(t *testing.T, c client.Client, ns string) map[string]types.UID {
	t.Helper()
	ctx := context.Background()
	out := map[string]types.UID{}
	var stss appsv1.StatefulSetList
	if err := c.List(ctx, &stss, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, s := range stss.Items {
		out["StatefulSet/"+s.Name] = s.UID
	}
	var svcs corev1.ServiceList
	if err := c.List(ctx, &svcs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, s := range svcs.Items {
		out["Service/"+s.Name] = s.UID
	}
	return out
}
