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
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/internal/fe"
)

func TestDropWarehouse(t *testing.T) {
	names := PodNames{StatefulSet: "wh-warehouse-cn", HeadlessService: "wh-warehouse-cn-search", Namespace: "ns"}
	node := func(sts string, ord int) fe.ComputeNode {
		return fe.ComputeNode{Host: PodNames{StatefulSet: sts, HeadlessService: sts + "-search", Namespace: "ns"}.Pod(ord) + "." + sts + "-search.ns.svc.cluster.local", HeartbeatPort: 9050}
	}
	t0 := time.Now()
	in := WarehouseDrop{Names: names, Warehouse: "wh", UID: "wh-uid", Every: 10 * time.Second, Now: t0}
	read := func(nodes *ComputeNodesRead) Reads {
		r := Reads{ComputeNodes: nodes}
		r.Read.ComputeNodes = true
		return r
	}

	st, m := DropWarehouse(in, WarehouseDropped{}, Reads{})
	if !st.Needs.ComputeNodes || !st.Needs.Since.Equal(t0) || len(st.Statements) > 0 {
		t.Fatalf("first: %+v, want FE's compute nodes read since now, nothing sent", st)
	}
	if st, _ := DropWarehouse(in, m, read(nil)); st.After != time.Second || len(st.Statements) > 0 {
		t.Errorf("list not in yet: %+v, want a look again soon", st)
	}
	if st, again := DropWarehouse(in, m, read(&ComputeNodesRead{Err: errors.New("dial timeout")})); st.Err == nil || !again.Due.IsZero() {
		t.Errorf("FE not answering: %+v, %+v; want the reconcile's error, read again next time", st, again)
	}
	st, done := DropWarehouse(in, m, read(&ComputeNodesRead{At: t0, Nodes: []fe.ComputeNode{node("wh-warehouse-cn", 0), node("c-cn", 0), node("wh-warehouse-cn", 1)}}))
	want := []fe.Statement{fe.DropComputeNode{Node: node("wh-warehouse-cn", 0)}, fe.DropComputeNode{Node: node("wh-warehouse-cn", 1)}, fe.DropWarehouse{Name: "wh"}}
	if len(st.Statements) != len(want) || done.UID != "wh-uid" {
		t.Fatalf("statements %+v, memory %+v; want its nodes, then the warehouse, remembered dropped", st.Statements, done)
	}
	for i := range want {
		if st.Statements[i] != want[i] {
			t.Errorf("statement %d: %+v, want %+v", i, st.Statements[i], want[i])
		}
	}
	if f, again := st.Failed(errors.New("refused")); f.Err == nil || again.UID != "" {
		t.Errorf("failed: %+v, %+v; want the error, not remembered dropped", f, again)
	}
	if st, _ := DropWarehouse(in, done, Reads{}); st.Needs.Any() || len(st.Statements) > 0 {
		t.Errorf("dropped already: %+v, want nothing", st)
	}
	kept := in
	kept.Kept = "not made by this object"
	st, done = DropWarehouse(kept, m, read(&ComputeNodesRead{At: t0, Nodes: []fe.ComputeNode{node("wh-warehouse-cn", 0)}}))
	if len(st.Statements) != 1 || st.Statements[0] != want[0] || len(st.Events) != 1 || st.Events[0].Reason != "FEWarehouseKept" || st.Events[0].Warning || done.UID != "wh-uid" {
		t.Errorf("not its warehouse: %+v, %+v; want its nodes dropped, the warehouse kept with a Normal FEWarehouseKept Event", st, done)
	}
}
