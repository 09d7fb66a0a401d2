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

package warehouse

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
)

// Which FE warehouse is this object's to drop. The CN entrypoint makes the
// FE warehouse (CREATE WAREHOUSE IF NOT EXISTS, facts sheet §13), so FE
// cannot say who made it, and deleting a StarRocksWarehouse used to drop
// any FE warehouse of its name, a DBA's too. Before the warehouse's first
// compute node exists, the operator sends CREATE WAREHOUSE itself, without
// IF NOT EXISTS, and records on the object what FE said
// (srv1.FEWarehouseOwnerAnnotation): the object's UID when FE made it now,
// "existed" when FE had it. The record is on the object, so it survives a
// restart; a crash between the CREATE and the record leaves "existed" on
// the next try, and the FE warehouse is left, never dropped by mistake.
//
// The claim is the one talk with FE outside the executor of StarRocks steps
// (internal/controller/frontend's Run), for now: its record is FE's answer
// to its statement, written after it, where a Step's record is decided
// before its statements and written before them. It came with issue 51,
// beside the executor; putting it on the executor asks for a Step whose
// record follows a statement's answer.

// Values of FEWarehouseOwnerAnnotation besides an object's UID.
const (
	ownerExisted = "existed"
	ownerUnknown = "unknown"
)

// claimFEWarehouse makes the FE warehouse and records whose it is, once,
// before the compute nodes exist. A warehouse whose StatefulSet exists
// already (one the upstream operator made) records nothing: it is dropped
// as the upstream drops it.
func (r *Reconciler) claimFEWarehouse(ctx context.Context, s *scope) bool {
	if _, recorded := s.wh.Annotations[srv1.FEWarehouseOwnerAnnotation]; recorded || s.live != nil || s.theirs || !r.FE.Configured() {
		return true
	}
	var existed bool
	err := r.FE.Exec(ctx, s.src, s.feConf, func(c *fe.Client) error {
		var err error
		existed, err = c.CreateWarehouse(ctx, fe.WarehouseName(s.wh.Name))
		return err
	})
	owner := string(s.wh.UID)
	switch {
	case err == nil && existed:
		owner = ownerExisted
	case err != nil && feaccess.KindOf(err) == feaccess.PermissionDenied:
		owner = ownerUnknown // the CN entrypoint, as root, makes it; the operator will not drop it
	case err != nil:
		s.err = fmt.Errorf("creating FE warehouse %s: %w", fe.WarehouseName(s.wh.Name), err)
		return false
	}
	patch := client.MergeFrom(s.wh.DeepCopy())
	if s.wh.Annotations == nil {
		s.wh.Annotations = map[string]string{}
	}
	s.wh.Annotations[srv1.FEWarehouseOwnerAnnotation] = owner
	if err := r.Client.Patch(ctx, s.wh, patch); err != nil {
		s.err = fmt.Errorf("recording whose FE warehouse %s is: %w", fe.WarehouseName(s.wh.Name), err)
		return false
	}
	return true
}

// ownsFEWarehouse is true when deleting wh may drop its FE warehouse: the
// operator made it for wh, or no record was ever made (the upstream's way).
func ownsFEWarehouse(wh *srv1.StarRocksWarehouse) bool {
	owner, recorded := wh.Annotations[srv1.FEWarehouseOwnerAnnotation]
	return !recorded || owner == string(wh.UID)
}
