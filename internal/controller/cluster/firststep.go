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
	"slices"

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
// more than one worker (StartApart). It writes FE's objects before the
// status, and, when more clusters want a worker than there are, writes
// only what FE's pods need and ends the reconcile to free its worker.
//
// Which way it goes (starrocks.WorkersShort, asked before the writes):
//   - Workers short: the StatefulSet and the headless Service, which gives
//     FE's pods their DNS names, in one round trip (the Service behind the
//     StatefulSet, see apply.ApplyAll), then the end. The client Service,
//     FE's disruption budget (of 2 or more FE), the status and the Event
//     follow in the next reconcile, which the StatefulSet's watch event
//     brings at reconcile.FollowUpPriority, behind the clusters still
//     waiting for their first write: every FE is created before any worker
//     waits for a client Service. With a client-side QPS limit the
//     headless Service keeps the core/v1 bucket busy while the apps/v1 one
//     paces the StatefulSets. The split costs no write and no Event: the
//     next reconcile writes what this one leaves, and one Event tells both
//     (what this one wrote is remembered in memory; after a restart in
//     between, the Event tells only the second step).
//   - Workers to spare (a single new cluster, or a burst that fits the
//     workers, such as 50 new clusters on 50 workers): every FE object, the
//     StatefulSet first, and the reconcile goes on to the status and the
//     Event. The client Service is not held back behind other clusters'
//     StatefulSets (reconcile.AllocatesClusterIP, writeorder.Early): the
//     API server allocates ClusterIPs one at a time, and that line is the
//     last thing a burst of new clusters waits for. The status follows the
//     writes instead of going beside them: in a burst, a status patch sent
//     beside them would compete with the StatefulSets and that line on the
//     server. If workers run short by the time the other writes are
//     answered, the step ends there as above and leaves the client
//     Service's create in flight (apply.Run): no worker waits in that line
//     while clusters wait for a worker, and the next reconcile takes the
//     create's answer instead of sending another.
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
	short := r.WorkersShort()
	objs = starrocks.FirstWrites(objs, client.Object(sts), client.Object(s.want.objects.FE.SearchService), short)
	run := r.Applier.Begin(ctx, objs)
	results, err := run.Wait(ctx, func(o client.Object) bool { return !reconcile.AllocatesClusterIP(o) })
	failed := func() bool {
		return err != nil || slices.ContainsFunc(results, func(res apply.Result) bool { return res.Pending })
	}
	if !failed() && (short || r.WorkersShort()) {
		// Clusters wait for a worker: the client Service stays in flight,
		// and the next reconcile takes its answer (apply.Run).
		reconcile.CountWrites(results)
		addStarted(r.started, s.src, results)
		s.started = true
		return false
	}
	rest, restErr := run.Wait(ctx, func(client.Object) bool { return true })
	results, err = append(results, rest...), errors.Join(err, restErr)
	if failed() {
		reconcile.CountWrites(results)
		addStarted(r.started, s.src, results)
		return true
	}
	s.results = append(s.results, results...)
	s.written = append(s.written, objs...)
	return true
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
