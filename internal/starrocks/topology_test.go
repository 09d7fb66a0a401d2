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
	"slices"
	"testing"

	"github.com/srscale/starrocks-operator/internal/fe"
)

func TestStaleNodesAreThisStatefulSetsPodsAboveReplicas(t *testing.T) {
	cn := PodNames{StatefulSet: "c-cn", HeadlessService: "c-cn-search", Namespace: "ns"}
	nodes := []fe.ComputeNode{
		{Host: "c-cn-0.c-cn-search.ns.svc.cluster.local", HeartbeatPort: 9050},
		{Host: "c-cn-1.c-cn-search.ns.svc.cluster.local", HeartbeatPort: 9050},
		{Host: "c-cn-2.c-cn-search.ns.svc.cluster.local", HeartbeatPort: 9050},
		{Host: "c-cn-10.c-cn-search.ns.svc.example.org", HeartbeatPort: 9050},
		{Host: "c-cn-3.c-cn-search.other.svc.cluster.local", HeartbeatPort: 9050},  // other namespace
		{Host: "c-cn-x-3.c-cn-x-search.ns.svc.cluster.local", HeartbeatPort: 9050}, // other StatefulSet with a longer name
		{Host: "wh-warehouse-cn-4.wh-warehouse-cn-search.ns.svc.cluster.local", HeartbeatPort: 9050},
		{Host: "10.0.0.7", HeartbeatPort: 9050},                                 // registered by IP: not ours to judge
		{Host: "c-cn-05.c-cn-search.ns.svc.cluster.local", HeartbeatPort: 9050}, // not an ordinal
	}
	var got []string
	for _, n := range cn.StaleComputeNodes(nodes, 1) {
		got = append(got, n.Host)
	}
	want := []string{"c-cn-1.c-cn-search.ns.svc.cluster.local", "c-cn-10.c-cn-search.ns.svc.example.org", "c-cn-2.c-cn-search.ns.svc.cluster.local"}
	if !slices.Equal(got, want) {
		t.Errorf("stale nodes = %v, want %v", got, want)
	}
	if n := cn.StaleComputeNodes(nodes, 11); len(n) != 0 {
		t.Errorf("with 11 replicas nothing is stale, got %v", n)
	}
}
