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

package starrocks

import (
	"errors"
	"fmt"
	"strings"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// A BE rollout on storage that dies with the pod (docs/upgrades.md): a BE
// whose storage_root_path is not on a PersistentVolumeClaim comes back
// empty from every replacement, and FE learns it at the BE's next tablet
// report (facts sheet §14). The gate then holds the next pod until FE has
// cloned the missing replicas from the others; a tablet with one replica
// has no other, and is lost. The parallel rollout refuses such a BE
// (ChooseParallel, the same UnclaimedDataDirs); the rollout one pod at a
// time goes on with a Warning, and is refused while FE lists partitions
// of replication_num 1, unless the cluster says to roll anyway.

// EphemeralRolloutIn is what EphemeralRollout decides from.
type EphemeralRolloutIn struct {
	// Changing is true when the write about to be made changes BE's pod
	// template: a rollout begins.
	Changing bool
	// Dirs are BE's data directories not on a claim (UnclaimedDataDirs of
	// the desired StatefulSet); SharedData is true when BE keeps a cache
	// only (its data is in object storage).
	Dirs       []string
	SharedData bool
	// Allowed is the cluster's starrocks.com/rollout-ephemeral-storage:
	// allow.
	Allowed bool
	// Ungated is true when the cluster's starrocks.com/rollout-gate is
	// off: the user rolls without StarRocks' word, and FE is not asked;
	// IfReachable when it is if-fe-reachable: an FE that does not answer
	// lets the rollout go.
	Ungated, IfReachable bool
	// NoAccess is true when the operator has no access to FE configured:
	// FE is never asked, and the rollout goes with the Warning. FEDown is
	// true when no FE pod is Ready: FE is not asked now, as if it did not
	// answer.
	NoAccess, FEDown bool
	// Key names the change (the desired pod template): the Warning is told
	// once per change.
	Key string
	// Every is how soon FE is asked again while the rollout is refused.
	Every time.Duration
}

// EphemeralNote is what EphemeralRollout remembers of a cluster: the
// change whose Warning Event it told.
type EphemeralNote struct {
	Told string
}

// EphemeralRollout decides a BE pod template change on storage that dies
// with the pod: nothing to say when the storage is on claims (or a cache
// only, shared-data) or nothing changes; otherwise it asks FE for its
// partitions of replication_num 1, and keeps the pod template, refused,
// while FE lists one or answers with an error (waiting, while FE does not
// answer at all); the rollout goes with a Warning Event (once per change)
// and a word in Progressing when FE lists none, or the cluster allows it,
// or rolls without StarRocks' word (rollout-gate off, or if-fe-reachable
// and FE does not answer).
func EphemeralRollout(in EphemeralRolloutIn, m EphemeralNote, r Reads) (Step[EphemeralNote], EphemeralNote) {
	if !in.Changing || len(in.Dirs) == 0 || in.SharedData {
		return Step[EphemeralNote]{}, m
	}
	where := fmt.Sprintf("BE's storage_root_path %s is not on a PersistentVolumeClaim: each BE the rollout replaces comes back empty", strings.Join(in.Dirs, ", "))
	escape := srv1.RolloutEphemeralStorageAnnotation + "=" + srv1.RolloutEphemeralStorageAllow
	if !in.Allowed && !in.Ungated && !in.NoAccess {
		if in.FEDown {
			r = Reads{Read: Needs{SingleReplica: true}, SingleReplicaErr: errNoFEReady, SingleReplicaUnanswered: true}
		}
		if !r.Read.SingleReplica {
			return Step[EphemeralNote]{Needs: Needs{SingleReplica: true}}, m
		}
		refuse := func(why string) (Step[EphemeralNote], EphemeralNote) {
			return Step[EphemeralNote]{After: in.Every, Holds: []Hold{{Component: resources.ComponentBE, Template: true, Refuses: true,
				Reason: srv1.ReasonEphemeralStorageRefused,
				Message: where + ", " + why + "; the pod template is kept, no pod restarts (give BE's storage a volumeClaimTemplate, raise those tables' replication_num, " +
					"or annotate the cluster " + escape + " to roll anyway and lose them)"},
				{Component: resources.ComponentBE, ConfigHash: true}}}, m
		}
		switch {
		case r.SingleReplicaUnanswered && !in.IfReachable:
			// FE does not answer now (a restart, an election): the
			// change waits for it, as the gate would.
			return Step[EphemeralNote]{After: in.Every, Holds: []Hold{{Component: resources.ComponentBE, Template: true, Waits: true, Trouble: r.SingleReplicaErr,
				Reason:  srv1.ReasonEphemeralStorageRefused,
				Message: where + "; the rollout waits for FE's list of partitions of replication_num 1, whose only replica would be lost"},
				{Component: resources.ComponentBE, ConfigHash: true}}}, m
		case r.SingleReplicaUnanswered:
			// if-fe-reachable: goes on without FE's word, with the Warning.
		case r.SingleReplicaErr != nil:
			return refuse("and FE did not list its partitions of replication_num 1, whose only replica would be lost (" + r.SingleReplicaErr.Error() + ")")
		case len(r.SingleReplica) > 0:
			return refuse("and FE lists partitions of replication_num 1, whose only replica would be lost: " + partitionList(r.SingleReplica))
		}
	}
	note := where + "; FE re-clones each replica from another BE before the next BE goes, and a tablet with one replica is lost"
	switch {
	case in.Allowed:
		note += " (" + escape + ")"
	case in.Ungated:
		note += " (" + srv1.RolloutGateAnnotation + "=" + srv1.RolloutGateOff + ": FE not asked)"
	case in.NoAccess:
		note += " (the operator has no access to FE configured: FE not asked)"
	case r.SingleReplicaErr != nil:
		note += " (" + srv1.RolloutGateAnnotation + "=" + srv1.RolloutGateIfFEReachable + ", and FE did not answer)"
	default:
		note += " (FE lists none now)"
	}
	st := Step[EphemeralNote]{Progress: &Progress{Note: note}}
	if m.Told != in.Key {
		st.Events = []Event{{Reason: srv1.ReasonEphemeralStorage, Action: "Rollout", Note: note, Warning: true}}
		m.Told = in.Key
	}
	return st, m
}

// errNoFEReady stands for FE's answer while no FE pod is Ready.
var errNoFEReady = errors.New("no FE pod is Ready")

// partitionList names ps, and says when FE may list more.
func partitionList(ps []fe.PartitionRef) string {
	names := make([]string, 0, len(ps))
	for _, p := range ps {
		names = append(names, p.String())
	}
	out := strings.Join(names, ", ")
	if len(ps) >= fe.SingleReplicaLimit {
		out += ", and maybe more"
	}
	return out
}
