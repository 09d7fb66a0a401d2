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
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// firstStep is the first step of a cluster whose FE StatefulSet does not
// exist (a new cluster, or its StatefulSet deleted), when the operator has
// more than one worker (StartApart). It writes the StatefulSet, what a new
// cluster waits for, and, while other new clusters come, ends the
// reconcile: the client Service, FE's disruption budget (of 2 or more FE),
// the status and the Event follow in the next reconcile, which the StatefulSet's watch event brings at
// reconcile.FollowUpPriority, behind the clusters still waiting for their first
// write. With many new clusters, every FE is created before any worker
// spends a round trip on client Services, whose ClusterIP allocation is the
// slowest write of a new cluster on the API server, and before their writes
// compete with the StatefulSets there. The split costs no write and no
// Event: the next reconcile writes what this one leaves, and one Event
// tells both (what this one wrote is remembered in memory; after a restart
// in between, the Event tells only the second step).
//
// Which way it goes:
//   - Reconciles wait for a worker (Waiting): the StatefulSet and the
//     headless Service, which gives FE's pods their DNS names, in one round
//     trip (the Service behind the StatefulSet, see apply.ApplyAll), then
//     the end. With a client-side QPS limit the headless Service keeps the
//     core/v1 bucket busy while the apps/v1 one paces the StatefulSets.
//   - None waits: the StatefulSet alone. Once it is written, if a reconcile
//     now waits, another first step is still writing its StatefulSet, or
//     another new cluster began within 50 ms (starrocks.OthersComing: a
//     burst the informer has not delivered in full yet), the end, everything else in the next
//     reconcile, so that the worker is free after one round trip (with
//     latency the StatefulSet's watch event, which brings that reconcile,
//     arrives with the response). Otherwise (a burst that fits the workers, such as 50 new
//     clusters on 50 workers behind a distant API server, or a single new
//     cluster) a split would only cost the cluster round trips: the
//     reconcile goes on with the rest at once, so the Services and the
//     status follow the StatefulSet within one round trip instead of two,
//     without waiting for a watch event.
//
// With one worker nothing starts apart (its Services already go in the
// StatefulSet's round trip, see apply.ApplyAll). Anything unusual takes the
// full reconcile, which reports it: a hold, a disaster recovery (its status
// steps come with the first write), a failed or pending write in this step
// (the full reconcile goes on at once), or an error in the last reconcile
// (a write that keeps failing is sent once per retry, not twice).
func (r *Reconciler) firstStep(ctx context.Context, s *clusterScope) bool {
	fe := resources.ComponentFE
	if !r.StartApart || s.holds.Err() != nil || s.holds.Warning() != nil || s.in.live[fe] != nil || s.recovering() ||
		meta.IsStatusConditionTrue(s.src.Status.Conditions, srv1.ConditionReconcileError) {
		return true
	}
	sts := s.want.objects.StatefulSet(fe)
	objs := s.applicable(fe)
	if !slices.Contains(objs, client.Object(sts)) {
		return true
	}
	began := time.Now().UnixNano()
	before := r.lastFirstStep.Swap(began)
	r.firstSteps.Add(1)
	decided := sync.OnceFunc(func() { r.firstSteps.Add(-1) })
	defer decided()
	waiting := r.Waiting == nil || r.Waiting()
	objs = starrocks.FirstWrites(objs, client.Object(sts), client.Object(s.want.objects.FE.SearchService), waiting)
	results, err := r.Applier.ApplyAll(ctx, objs)
	if err != nil || slices.ContainsFunc(results, func(res apply.Result) bool { return res.Pending }) {
		reconcile.CountWrites(results)
		addStarted(r.started, s.src, results)
		return true
	}
	others := r.firstSteps.Load() > 1
	decided()
	if !waiting && !others && !r.othersComing(began, before) {
		s.results = append(s.results, results...)
		s.written = append(s.written, sts)
		return true
	}
	reconcile.CountWrites(results)
	addStarted(r.started, s.src, results)
	s.started = true
	return false
}

// othersComing reports whether other reconciles wait for a worker, or
// another new cluster's first step began just now (starrocks.OthersComing):
// the latest after this one (which began at began), else the latest before it.
func (r *Reconciler) othersComing(began, before int64) bool {
	other := r.lastFirstStep.Load()
	if other == began {
		other = before
	}
	return starrocks.OthersComing(r.Waiting == nil || r.Waiting(), time.Unix(0, other), time.Now())
}

// started is what the first step wrote to one cluster (by UID: a cluster
// deleted and made again under its name starts afresh), told with the
// next reconcile's Event.
type started struct {
	uid     types.UID
	results []apply.Result
}

// addStarted remembers the first step's writes to src.
func addStarted(m *reconcile.Memo[started], src *srv1.StarRocksCluster, results []apply.Result) {
	m.Update(client.ObjectKeyFromObject(src), func(old started, ok bool) (started, bool) {
		if ok && old.uid == src.UID {
			results = append(old.results, results...)
		}
		return started{uid: src.UID, results: results}, true
	})
}

// takeStarted returns and forgets what was started for src.
func takeStarted(m *reconcile.Memo[started], src *srv1.StarRocksCluster) []apply.Result {
	st, ok := m.Take(client.ObjectKeyFromObject(src))
	if !ok || st.uid != src.UID {
		return nil
	}
	return st.results
}
