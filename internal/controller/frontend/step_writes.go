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

package frontend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// StatementTimeout bounds the statements of one step.
const StatementTimeout = 10 * time.Second

// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=delete

// writes are what a step writes, in the order send does them.
type writes struct {
	record     *starrocks.Record
	marks      []starrocks.Mark
	statements []fe.Statement
	// independent: each statement is its own attempt (Step.Independent).
	independent bool
	delete      starrocks.Deletions
}

func writesOf[M any](st starrocks.Step[M]) writes {
	return writes{record: st.Record, marks: st.Marks, statements: st.Statements, independent: st.Independent, delete: st.Delete}
}

// send does a step's writes in their order: the record written, the
// marks set, the statements sent through the door (which marks FE's word
// out of date), the claims and then the pods deleted, the marks cleared,
// the record removed. Each write that must outlive the process comes
// before the statement it records; the first failure ends them.
func (x Steps) send(ctx context.Context, t Target, w writes) error {
	if w.record != nil && w.record.Value != "" {
		if err := x.record(ctx, t, *w.record); err != nil {
			return &starrocks.RecordError{Err: err}
		}
	}
	for _, m := range w.marks {
		if !m.Clear {
			if err := x.mark(ctx, t, m); err != nil {
				return err
			}
		}
	}
	send := x.sendStatements
	if w.independent {
		send = x.sendEach
	}
	if err := send(ctx, t, w.statements); err != nil {
		return err
	}
	for _, ord := range w.delete.Claims {
		if err := x.deleteClaims(ctx, t, ord); err != nil {
			return err
		}
	}
	for _, ord := range w.delete.Pods {
		pod := &corev1.Pod{}
		pod.Namespace, pod.Name = t.StatefulSet.Namespace, resources.PodName(t.StatefulSet.Name, ord)
		if err := client.IgnoreNotFound(x.Client.Delete(ctx, pod)); err != nil {
			return fmt.Errorf("deleting pod %s to start it afresh: %w", pod.Name, err)
		}
	}
	for _, m := range w.marks {
		if m.Clear {
			if err := x.mark(ctx, t, m); err != nil {
				return err
			}
		}
	}
	if w.record != nil && w.record.Value == "" {
		if err := x.record(ctx, t, *w.record); err != nil {
			return &starrocks.RecordError{Err: err}
		}
	}
	return nil
}

// sendStatements sends statements to the cluster's FE through the door, in
// order, within StatementTimeout; the first failure ends them.
func (x Steps) sendStatements(ctx context.Context, t Target, statements []fe.Statement) error {
	if len(statements) == 0 {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, StatementTimeout)
	defer cancel()
	return x.Door.Exec(sctx, t.Cluster, t.FEConf, func(c *fe.Client) error {
		for _, stmt := range statements {
			if err := stmt.Send(sctx, c); err != nil {
				return err
			}
		}
		return nil
	})
}

// sendEach sends statements to the cluster's FE through the door, each as
// its own attempt within its own StatementTimeout: one that fails does not
// stop the next (an ADMIN SET FRONTEND CONFIG that FE fails after setting
// it on the FEs that answered, ConfigBase.setConfig). The errors are
// joined.
func (x Steps) sendEach(ctx context.Context, t Target, statements []fe.Statement) error {
	var errs []error
	for _, stmt := range statements {
		errs = append(errs, x.sendStatements(ctx, t, []fe.Statement{stmt}))
	}
	return errors.Join(errs...)
}

// mark sets (or clears) the operator's mark on a pod, just before the
// statement it records (or after the one that took it back): the mark, on
// the pod, outlives this process (srv1.DroppedFromFEGroupAnnotation before
// a DROP FOLLOWER, srv1.DecommissionedByOperatorAnnotation before a
// DECOMMISSION).
func (x Steps) mark(ctx context.Context, t Target, m starrocks.Mark) error {
	pod := &corev1.Pod{}
	pod.Namespace, pod.Name = t.StatefulSet.Namespace, resources.PodName(t.StatefulSet.Name, m.Pod)
	value := `"true"`
	if m.Clear {
		value = "null"
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%s}}}`, m.Annotation, value)
	err := x.Client.Patch(ctx, pod, client.RawPatch(types.MergePatchType, []byte(patch)), client.FieldOwner(reconcile.FieldOwner))
	if m.Gone {
		err = client.IgnoreNotFound(err)
	}
	if err != nil {
		return fmt.Errorf("marking pod %s %s=%v: %w", pod.Name, m.Annotation, !m.Clear, err)
	}
	return nil
}

// record sets (or removes, for an empty value) a record annotation on the
// object the step is done for, a merge patch of the one annotation, and
// remembers what it wrote until the cache shows it (Recorded).
func (x Steps) record(ctx context.Context, t Target, r starrocks.Record) error {
	value := "null"
	if r.Value != "" {
		q, err := json.Marshal(r.Value)
		if err != nil {
			return err
		}
		value = string(q)
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%s}}}`, r.Annotation, value)
	obj := t.On.DeepCopyObject().(client.Object)
	if err := x.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch)), client.FieldOwner(reconcile.FieldOwner)); err != nil {
		return fmt.Errorf("recording %s on %s: %w", r.Annotation, t.On.GetName(), err)
	}
	x.Memory.records.Update(client.ObjectKeyFromObject(t.On), func(m map[string]string, _ bool) (map[string]string, bool) {
		m = clone(m)
		m[r.Annotation] = r.Value
		return m, true
	})
	return nil
}

// deleteClaims deletes the claims of one pod of the StatefulSet: an FE
// that left FE's group, whose metadata is of no use (the group holds it)
// and harmful, since an FE that starts on the metadata of a member FE
// dropped fails ("explicitly removed", facts sheet §7). Without them, a
// later scale-up starts that ordinal afresh: it asks the leader to ADD it
// and joins with --helper (§1). The StatefulSet controller keeps claims on
// scale-down; Kubernetes defers the deletion of a claim until no pod uses it.
func (x Steps) deleteClaims(ctx context.Context, t Target, ordinal int) error {
	sts := t.StatefulSet
	for _, tmpl := range sts.Spec.VolumeClaimTemplates {
		pvc := &corev1.PersistentVolumeClaim{}
		pvc.Namespace, pvc.Name = sts.Namespace, tmpl.Name+"-"+resources.PodName(sts.Name, ordinal)
		if err := client.IgnoreNotFound(x.Client.Delete(ctx, pvc)); err != nil {
			return fmt.Errorf("deleting claim %s: %w", pvc.Name, err)
		}
	}
	return nil
}
