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
	"fmt"
	"slices"
	"strings"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// Report is what FE said of its nodes and tablets, at one moment.
type Report struct {
	// At is when the read started; a report is only as new as its oldest answer.
	At time.Time
	// Err is why FE did not list its nodes; the rest is then empty.
	Err          error
	Frontends    []fe.Frontend
	Backends     []fe.Backend
	ComputeNodes []fe.ComputeNode
	// StatisticErr is why FE did not count its tablets (a slow SHOW PROC
	// '/statistic', facts sheet §14) while it listed its nodes; Statistic
	// is then zero. What needs only the nodes (a decommission, an FE step)
	// goes on; what needs the count (a BE rollout's gate, the health) waits.
	StatisticErr error
	Statistic    fe.Statistic
}

// ComputeNodesRead is FE's list of its compute nodes (SHOW COMPUTE NODES),
// read at one moment: At is when the read started; Err why FE did not
// list them.
type ComputeNodesRead struct {
	At    time.Time
	Err   error
	Nodes []fe.ComputeNode
}

// FrontendsRead is FE's group as one FE listed it at one moment (At, when
// the read started): Leader is the host asked, the leader of FE's report,
// on its own address; Err why it did not answer.
type FrontendsRead struct {
	At        time.Time
	Leader    string
	Err       error
	Frontends []fe.Frontend
}

// PodNames names the nodes of one StatefulSet by their pods: FE lists them
// under the pod's DNS name (HOST_TYPE=FQDN, facts sheet §1),
// <pod>.<headless service>.<namespace>[.svc.<cluster domain>]. It is the
// one pod ↔ FE host mapping: scale-in, health, gates and the compute-node
// cleanup all read FE's rows through it.
type PodNames struct {
	StatefulSet, HeadlessService, Namespace string
}

// NamesOf names the pods of the StatefulSet of component c of src.
func NamesOf(src *srv1.StarRocksCluster, c resources.Component) PodNames {
	names := PodNames{StatefulSet: resources.StatefulSetName(src, c), Namespace: src.Namespace}
	switch c {
	case resources.ComponentFE:
		names.HeadlessService = src.FeSearchServiceName()
	case resources.ComponentBE:
		names.HeadlessService = src.BeSearchServiceName()
	case resources.ComponentCN:
		names.HeadlessService = src.CnSearchServiceName()
	}
	return names
}

// Ordinal is the pod ordinal of a node FE lists under host; ok is false for
// a node of another StatefulSet or registered by address. Any cluster DNS
// domain after the namespace matches.
func (p PodNames) Ordinal(host string) (int, bool) {
	return fe.Ordinal(host, p.StatefulSet, p.HeadlessService, p.Namespace)
}

// Pod is the name of the pod of that ordinal.
func (p PodNames) Pod(ordinal int) string { return fmt.Sprintf("%s-%d", p.StatefulSet, ordinal) }

// StaleComputeNodes are the compute nodes of the StatefulSet that a
// scale-in removed: registered under the DNS name of one of its pods whose
// ordinal is at or above replicas, sorted by host. Nodes of other
// StatefulSets, of other clusters, or registered by address are never
// returned.
func (p PodNames) StaleComputeNodes(nodes []fe.ComputeNode, replicas int32) []fe.ComputeNode {
	var out []fe.ComputeNode
	for _, n := range nodes {
		if ord, ok := p.Ordinal(n.Host); ok && ord >= int(replicas) {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b fe.ComputeNode) int { return strings.Compare(a.Host, b.Host) })
	return out
}
