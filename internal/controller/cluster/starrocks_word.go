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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
	"github.com/srscale/starrocks-operator/internal/status"
)

// What StarRocks says of the cluster: FE's report (internal/feaccess), read
// at the rollout rate (--fe-look-every) while a gated rollout runs, and
// otherwise at most once per sync period, for StarRocksHealthy and the
// status figures.

// feReport is what FE said of its nodes and tablets, at one moment.
type feReport = feaccess.Report

// defaultSyncPeriod is the operator's default --sync-period, for a
// reconciler built without one (unit tests).
const defaultSyncPeriod = 2 * time.Minute

// healthEvery is how old FE's last report may be before a reconcile
// outside rollouts reads FE again: the sync period, less a fifth for the
// resync's jitter, so that each resync reads once, not every other one.
func healthEvery(syncPeriod time.Duration) time.Duration {
	if syncPeriod <= 0 {
		syncPeriod = defaultSyncPeriod
	}
	return syncPeriod - syncPeriod/5
}

// feWord returns FE's report for this reconcile, or nil when there is none
// (FE not Ready, no read yet, or none since the last change of FE's
// topology), at the cadence feaccess.Door.Word keeps: the rollout rate
// while rolling, or while FE has not been asked since a pod of the cluster
// last changed (at changed: a pod that stopped, returned or was created);
// otherwise only when the last read is older than health.
func (r *Reconciler) feWord(s *clusterScope, rolling bool, changed time.Time, health time.Duration) *feReport {
	if !feAnswers(s) {
		return nil
	}
	rep, again := r.FE.Word(s.src, s.want.feConf, feaccess.Cadence{Rolling: rolling, Changed: changed, Health: health})
	s.later(again)
	return rep
}

// lastPodChange is the latest creation or readiness change of the
// cluster's FE, BE and CN pods (a pod going away turns not Ready first);
// zero when none is known.
func lastPodChange(pods map[resources.Component][]corev1.Pod) time.Time {
	var last time.Time
	note := func(t time.Time) {
		if t.After(last) {
			last = t
		}
	}
	for _, c := range statefulSetComponents {
		for i := range pods[c] {
			p := &pods[c][i]
			note(p.CreationTimestamp.Time)
			note(resources.PodReadySince(p))
		}
	}
	return last
}

// gateWord is FE's report as the gate of component c reads it; nil when there is none.
func gateWord(rep *feReport, src *srv1.StarRocksCluster, c resources.Component) *starrocks.Word {
	return starrocks.GateWord(rep.Pure(), src, c)
}

// starRocksWord is what the status says of FE's word (StarRocksHealthy and
// the per-component figures); nil says nothing new. Until FE first
// answered there is no condition at all: a cluster whose FE never answers
// (an API-only run, an FE the operator cannot reach) writes no more than
// before, and a rollout's own message says that it waits for FE. A TLS
// failure is told at once: FE runs, and the SSL mode is what must change.
func starRocksWord(src *srv1.StarRocksCluster, answers bool, rep *feReport, pods map[resources.Component]int32) *status.StarRocksWord {
	answered := meta.FindStatusCondition(src.Status.Conditions, srv1.ConditionStarRocksHealthy) != nil
	switch {
	case !answers:
		if !answered {
			return nil
		}
		return &status.StarRocksWord{Reason: srv1.ReasonFEUnreachable, Message: "no FE pod is Ready"}
	case rep == nil:
		return nil
	case rep.Err != nil:
		t := feaccess.Classify(rep.Err)
		if !answered && t.Reason == srv1.ReasonFEUnreachable {
			return nil
		}
		return &status.StarRocksWord{Reason: t.Reason, Message: t.What + ": " + rep.Err.Error()}
	}
	w := starrocks.Health(src, rep.Pure(), pods)
	if rep.StatisticErr != nil && w.Reason == srv1.ReasonFEUnreachable {
		// FE listed its nodes but not its tablet count: say why as for a
		// failed read (a missing OPERATE privilege is the user's to grant).
		t := feaccess.Classify(rep.StatisticErr)
		w.Reason, w.Message = t.Reason, t.What+": FE listed its nodes but did not count its tablets: "+rep.StatisticErr.Error()
	}
	return w
}
