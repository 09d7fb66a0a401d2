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
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// parallel decides, for gateRollouts, whether component c's rollout
// replaces every pod at once (starrocks.ChooseParallel: the cluster's
// starrocks.com/rollout: parallel, confirmed by the image it rolls to). A
// parallel rollout the cluster asks for and this change does not get is
// told in Progressing's message and, once per StatefulSet and message (it
// names the image), by a Warning Event ParallelRolloutDeclined.
func (r *Reconciler) parallel(ctx context.Context, s *clusterScope, c resources.Component, g starrocks.Gate) bool {
	ask := starrocks.ParallelAsk{
		Component: c, Mode: s.src.Annotations[srv1.RolloutAnnotation], Confirmed: s.src.Annotations[srv1.RolloutImageAnnotation],
		Live: g.Live, Desired: s.want.objects.StatefulSet(c), Changing: g.Changing, Conf: s.in.confs[c].content,
	}
	key := client.ObjectKeyFromObject(g.Live)
	if ask.Mode != srv1.RolloutParallel {
		r.parallelNotes.Forget(key)
		return false
	}
	if !g.Changing {
		ask.Pods = r.clusterPods(ctx, s)[c] // mid-rollout: which image the pods not replaced run
	}
	choice := starrocks.ChooseParallel(ask)
	if choice.Parallel {
		if s.gates.parallel == nil {
			s.gates.parallel = map[resources.Component]string{}
		}
		s.gates.parallel[c] = choice.Image
	}
	if choice.Declined == "" {
		// Kept while nothing is declined: a reconcile that sees no rollout
		// (the pre-flight keeps the template a moment) does not make the
		// same words told twice.
		return choice.Parallel
	}
	if s.gates.declined == nil {
		s.gates.declined = map[resources.Component]string{}
	}
	s.gates.declined[c] = choice.Declined
	told := false
	r.parallelNotes.Update(key, func(old string, ok bool) (string, bool) {
		told = ok && old == choice.Declined
		return choice.Declined, true
	})
	if !told {
		r.event(s.src, true, srv1.ReasonParallelRolloutDeclined, "Rollout", choice.Declined)
	}
	return false
}

// replaceAll deletes the pods of a parallel rollout at once; each comes
// back at the update revision (the StatefulSet is OnDelete). A delete, not
// an eviction: the user planned the downtime, and the disruption budget,
// which lets one pod go at a time, would refuse all but one. Each delete is
// made on the pod's UID, so a pod the StatefulSet made again in its place
// is never taken for it; one gone already is skipped, and so is one this
// process deleted that the cache does not show terminating yet (the
// watch event of the first deletion may bring a reconcile before the
// others'). FE's view is marked stale through the door, as for a gated
// rollout's deletion.
func (r *Reconciler) replaceAll(ctx context.Context, s *clusterScope, c resources.Component, g starrocks.Gate, pods []*corev1.Pod) error {
	key := client.ObjectKeyFromObject(g.Live)
	done, _ := r.replacing.Get(key)
	listed := map[types.UID]bool{}
	for _, p := range g.Pods {
		listed[p.UID] = true
	}
	pending := map[types.UID]bool{} // what the cache still shows running, of what was deleted
	var todo []*corev1.Pod
	for _, p := range pods {
		if done[p.UID] {
			pending[p.UID] = true
			continue
		}
		todo = append(todo, p)
	}
	var deleted []string
	err := r.FE.Changing(s.src, func() error {
		var errs error
		for _, p := range todo {
			err := r.Client.Delete(ctx, p, client.Preconditions(metav1.Preconditions{UID: ptr.To(p.UID)}))
			switch {
			case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
				// gone already, or another pod of that name: the next reconcile sees which
			case err != nil:
				errs = errors.Join(errs, fmt.Errorf("deleting pod %s for its parallel rollout: %w", p.Name, err))
			default:
				pending[p.UID] = true
				deleted = append(deleted, p.Name)
				s.results = append(s.results, apply.Result{Kind: "Pod", Name: p.Name, Action: apply.Deleted})
			}
		}
		return errs
	})
	for uid := range pending {
		if !listed[uid] {
			delete(pending, uid)
		}
	}
	if len(pending) > 0 {
		r.replacing.Put(key, pending)
	} else {
		r.replacing.Forget(key)
	}
	if len(deleted) > 0 {
		r.event(s.src, false, srv1.ReasonParallelRollout, "Rollout",
			fmt.Sprintf("%s=%s: deleted %d %s pods at once for %s (%s); %s is down until they are back",
				srv1.RolloutAnnotation, srv1.RolloutParallel, len(deleted), c.Title(), s.gates.parallel[c], strings.Join(deleted, ", "), c.Title()))
	}
	return err
}
