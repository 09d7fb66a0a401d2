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
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/srscale/starrocks-operator/internal/fe"
)

// WarehouseDrop is what dropping a deleted warehouse from FE is decided on.
type WarehouseDrop struct {
	// Names names the warehouse's CN pods as FE lists them; Warehouse is
	// FE's name of the warehouse (fe.WarehouseName).
	Names     PodNames
	Warehouse string
	// Kept, when set, says the FE warehouse was not made by this object:
	// its compute nodes are dropped, the warehouse is left in FE. It is
	// the note of the Event that says so.
	Kept string
	// UID is the warehouse's: FE's drop of it is remembered by it.
	UID types.UID
	// Every is how soon FE is read again.
	Every time.Duration
	Now   time.Time
}

// WarehouseDropped is the memory of a warehouse's drop from FE: since when
// it is due, and the warehouse FE dropped (by UID), so that a reconcile on
// a cache that still shows the finalizer does not send DROP WAREHOUSE
// again.
type WarehouseDropped struct {
	Due time.Time
	UID types.UID
}

// DropWarehouse drops a deleted warehouse from FE once its compute nodes'
// pods are gone: the rows of its compute nodes FE still lists, FROM its
// WAREHOUSE, then the warehouse (DROP WAREHOUSE IF EXISTS). A build that
// implements warehouses refuses to drop one with alive compute nodes
// (facts sheet §14), and the rows of nodes whose pods are gone would
// otherwise stay for ever (issue 34 item 28). FE's list of compute nodes is
// read off the reconcile workers, since the drop became due; what fails is
// the reconcile's error, retried on its back-off.
func DropWarehouse(in WarehouseDrop, m WarehouseDropped, r Reads) (Step[WarehouseDropped], WarehouseDropped) {
	if m.UID != "" && m.UID == in.UID {
		return Step[WarehouseDropped]{}, m
	}
	if m.Due.IsZero() {
		m.Due = in.Now
	}
	if !r.Read.ComputeNodes {
		return Step[WarehouseDropped]{Needs: Needs{ComputeNodes: true, Since: m.Due}}, m
	}
	again := WarehouseDropped{} // the next try reads FE again
	switch nodes := r.ComputeNodes; {
	case nodes == nil:
		return Step[WarehouseDropped]{After: max(in.Every/10, MinLookAgain)}, m
	case nodes.Err != nil:
		return Step[WarehouseDropped]{Err: nodes.Err}, again
	}
	st := Step[WarehouseDropped]{Log: &Log{Message: "dropped warehouse from FE", KeysAndValues: []any{"warehouse", in.Warehouse}}}
	for _, n := range in.Names.StaleComputeNodes(r.ComputeNodes.Nodes, 0) {
		st.Statements = append(st.Statements, fe.DropComputeNode{Node: n})
	}
	if in.Kept != "" {
		st.Log = nil
		st.Events = []Event{{Reason: "FEWarehouseKept", Action: "Delete", Note: in.Kept}}
	} else {
		st.Statements = append(st.Statements, fe.DropWarehouse{Name: in.Warehouse})
	}
	st.Failed = func(err error) (Step[WarehouseDropped], WarehouseDropped) {
		return Step[WarehouseDropped]{Err: err}, again
	}
	return st, WarehouseDropped{UID: in.UID}
}
