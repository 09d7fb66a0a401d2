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

	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
	"github.com/srscale/starrocks-operator/internal/version"
)

// HeartbeatSettle is how long after a pod change FE's list of alive nodes
// may still be behind it: a node is Alive from its first good heartbeat, up
// to heartbeat_timeout_second (5 s) after its process answers, and dead
// after more than heartbeat_retry_times (3) failed ones, about 20 s
// (ComputeNode.handleHbResponse, sheet §14); 30 s covers both with a round
// to spare.
const HeartbeatSettle = 30 * time.Second

// components are the StatefulSets FE lists nodes of, in status order.
var components = []resources.Component{resources.ComponentFE, resources.ComponentBE, resources.ComponentCN}

// ListsNodeDown is true when FE's report lists a node not Alive.
func (r *Report) ListsNodeDown() bool {
	if r.Err != nil {
		return false
	}
	for _, f := range r.Frontends {
		if !f.Alive {
			return true
		}
	}
	for _, b := range r.Backends {
		if !b.Alive {
			return true
		}
	}
	for _, n := range r.ComputeNodes {
		if !n.Alive {
			return true
		}
	}
	return false
}

// Settling is true while FE's last report (nil when none) may not tell the
// pod change at changed yet: it was read less than a second after (pod
// conditions are kept to the second), or, within HeartbeatSettle, it still
// lists a node not Alive. FE learns of a process by heartbeats, not from
// the pod (sheet §14). A zero changed settles nothing.
func Settling(changed time.Time, last *Report) bool {
	return !changed.IsZero() && (last == nil || last.At.Before(changed.Add(time.Second)) ||
		(last.At.Before(changed.Add(HeartbeatSettle)) && last.ListsNodeDown()))
}

// NodesOf maps FE's rows to the pods of component c's StatefulSet: alive
// by ordinal, and the leader's ordinal for FE (-1 when no row of these
// pods leads).
func NodesOf(rep *Report, names PodNames, c resources.Component) (alive map[int]bool, leader int) {
	alive, leader = map[int]bool{}, -1
	eachNode(rep, names, c, func(ord int, n node) {
		alive[ord] = n.alive
		if n.leads {
			leader = ord
		}
	})
	return alive, leader
}

// node is what the status and the gates read of one row of FE's report.
type node struct {
	alive, leads bool
	version      string // the Version column as FE prints it
	heard        Heard  // LastHeartbeat (BE, CN), the tablet report (BE)
}

// eachNode calls f for each row of component c that FE lists under one of
// names' pods, with the pod's ordinal.
func eachNode(rep *Report, names PodNames, c resources.Component, f func(ord int, n node)) {
	add := func(host string, n node) {
		if ord, ok := names.Ordinal(host); ok {
			f(ord, n)
		}
	}
	switch c {
	case resources.ComponentFE:
		for _, fe := range rep.Frontends {
			add(fe.Host, node{alive: fe.Alive, leads: fe.Leader(), version: fe.Version})
		}
	case resources.ComponentBE:
		for _, b := range rep.Backends {
			add(b.Host, node{alive: b.Alive, version: b.Version, heard: Heard{Heartbeat: b.LastHeartbeat, Tablets: b.TabletsReported, Reports: b.Reports}})
		}
	case resources.ComponentCN:
		for _, n := range rep.ComputeNodes {
			add(n.Host, node{alive: n.Alive, version: n.Version, heard: Heard{Heartbeat: n.LastHeartbeat}})
		}
	}
}

// GateWord is FE's report as the gate of component c reads it; nil when there is none.
func GateWord(rep *Report, src *srv1.StarRocksCluster, c resources.Component) *Word {
	if rep == nil {
		return nil
	}
	if rep.Err != nil {
		return &Word{At: rep.At, Err: rep.Err, Leader: -1}
	}
	names := NamesOf(src, c)
	alive, leader := NodesOf(rep, names, c)
	return &Word{At: rep.At, Alive: alive, Leader: leader, Unhealthy: rep.Statistic.UnhealthyTablets, TabletsErr: rep.StatisticErr, Heard: heardOf(rep, names, c)}
}

// heardOf is what FE last heard of the BE or CN rows of names, by ordinal.
func heardOf(rep *Report, names PodNames, c resources.Component) map[int]Heard {
	out := map[int]Heard{}
	if c != resources.ComponentFE {
		eachNode(rep, names, c, func(ord int, n node) { out[ord] = n.heard })
	}
	return out
}

// nodeVersions is the versions FE reports for the rows of names' pods,
// distinct and sorted, each without its commit ("3.3.10-227b0b3" is
// "3.3.10"); a form version.Reported cannot read is kept as FE prints it,
// NULL is left out. nil when there is none, so that a status without
// versions stays as it was.
func nodeVersions(rep *Report, names PodNames, c resources.Component) []string {
	var out []string
	eachNode(rep, names, c, func(_ int, n node) {
		v := strings.TrimSpace(n.version)
		if version.Null(v) {
			return
		}
		if o := version.Reported(v); o.Known() {
			v = o.Version.String()
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	})
	slices.Sort(out)
	return out
}

// Health is what the status says of a report FE answered: the nodes of
// each component the spec has (Alive, total, FE's leader, BE's unhealthy
// tablets) and StarRocksHealthy's reason: nodes not Alive first, then pods
// FE does not list at all (pods is how many each StatefulSet runs,
// ordinals 0 to pods-1), then unhealthy tablets.
func Health(src *srv1.StarRocksCluster, rep *Report, pods map[resources.Component]int32) *status.StarRocksWord {
	w := &status.StarRocksWord{}
	var down, unlisted []string
	for _, c := range components {
		if resources.LoadSpec(src, c) == nil {
			continue
		}
		names := NamesOf(src, c)
		alive, leader := NodesOf(rep, names, c)
		n := &srv1.StarRocksNodesStatus{Total: int32(len(alive)), Versions: nodeVersions(rep, names, c)}
		for ord, up := range alive {
			if up {
				n.Alive++
			} else {
				down = append(down, names.Pod(ord))
			}
		}
		for ord := range int(pods[c]) {
			if _, listed := alive[ord]; !listed {
				unlisted = append(unlisted, names.Pod(ord))
			}
		}
		switch c {
		case resources.ComponentFE:
			if leader >= 0 {
				n.Leader = names.Pod(leader)
			}
			w.FE = n
		case resources.ComponentBE:
			if rep.StatisticErr == nil {
				n.UnhealthyTablets = ptr.To(int32(rep.Statistic.UnhealthyTablets))
			}
			w.BE = n
		case resources.ComponentCN:
			w.CN = n
		}
	}
	slices.Sort(down)
	slices.Sort(unlisted)
	switch {
	case len(down) > 0:
		w.Reason, w.Message = srv1.ReasonNodesNotAlive, "FE lists these nodes not Alive: "+strings.Join(down, ", ")
	case len(unlisted) > 0:
		w.Reason, w.Message = srv1.ReasonNotRegistered, "FE does not list these pods at all: "+strings.Join(unlisted, ", ")
	case rep.StatisticErr != nil:
		w.Reason, w.Message = srv1.ReasonFEUnreachable, "FE listed its nodes but did not count its tablets: "+rep.StatisticErr.Error()
	case rep.Statistic.UnhealthyTablets > 0:
		w.Reason = srv1.ReasonTabletsUnhealthy
		w.Message = fmt.Sprintf("FE counts %d unhealthy tablets (UnhealthyTabletNum of SHOW PROC '/statistic')", rep.Statistic.UnhealthyTablets)
	default:
		w.Healthy, w.Reason = true, srv1.ReasonStarRocksHealthy
	}
	return w
}
