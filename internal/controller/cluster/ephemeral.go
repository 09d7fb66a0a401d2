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
	"encoding/json"
	"fmt"
	"hash/fnv"

	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/frontend"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// ephemeralStorage checks a BE pod template change whose storage dies with
// the pod (starrocks.EphemeralRollout; docs/upgrades.md): a Warning Event
// once per change and a word in Progressing, and the template kept,
// refused, while FE lists partitions of replication_num 1, unless the
// cluster's starrocks.com/rollout-ephemeral-storage is "allow". After the
// pre-flight, before the compatibility pause and the rollout order: a
// refused change starts nothing.
func (r *Reconciler) ephemeralStorage(ctx context.Context, s *clusterScope) bool {
	be := resources.ComponentBE
	live, want := s.in.live[be], s.want.objects.StatefulSet(be)
	if live == nil || want == nil || s.recovering() || s.holds.Keeps(be, want) {
		return true // nothing runs yet, or BE is held whole (its .conf unreadable, a removal)
	}
	in := starrocks.EphemeralRolloutIn{Changing: templateChanging(s.want.hashes, live, want),
		Dirs: starrocks.UnclaimedDataDirs(be, s.in.confs[be].content, want), SharedData: fe.SharedData(s.want.feConf),
		Allowed:     s.src.Annotations[srv1.RolloutEphemeralStorageAnnotation] == srv1.RolloutEphemeralStorageAllow,
		Ungated:     s.src.Annotations[srv1.RolloutGateAnnotation] == srv1.RolloutGateOff,
		IfReachable: s.src.Annotations[srv1.RolloutGateAnnotation] == srv1.RolloutGateIfFEReachable,
		NoAccess:    !r.FE.Configured(), FEDown: !feAnswers(s),
		Key: templateKey(want.Spec.Template), Every: r.FE.Every()}
	frontend.Run(ctx, r.steps(), s.target(be), r.ephemeralNotes, client.ObjectKeyFromObject(s.src), in, starrocks.EphemeralRollout)
	return true
}

// templateKey names a pod template: a hash of its JSON.
func templateKey(t any) string {
	b, err := json.Marshal(t)
	if err != nil {
		return ""
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	return fmt.Sprintf("%x", h.Sum64())
}
