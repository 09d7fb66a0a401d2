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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
)

func TestFEIsReadAgainUntilItsHeartbeatsCaughtUp(t *testing.T) {
	changed := time.Now()
	up := &Report{At: changed.Add(2 * time.Second), Backends: []fe.Backend{{Alive: true}}}
	down := &Report{At: changed.Add(2 * time.Second), Backends: []fe.Backend{{Alive: false}}}
	cases := []struct {
		name    string
		changed time.Time
		last    *Report
		want    bool
	}{
		{"no pod change: nothing to settle", time.Time{}, nil, false},
		{"no read since the change", changed, nil, true},
		{"a read within the second of the change says nothing of it", changed, &Report{At: changed.Add(500 * time.Millisecond)}, true},
		{"a read after the change listing every node Alive", changed, up, false},
		{"a read soon after the change listing a node down is taken again", changed, down, true},
		{"a node still down after the heartbeats settled is FE's word", changed, &Report{At: changed.Add(HeartbeatSettle), Backends: down.Backends}, false},
		{"a read FE did not answer lists no node down", changed, &Report{At: changed.Add(2 * time.Second), Err: errors.New("x"), Backends: down.Backends}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Settling(tc.changed, tc.last); got != tc.want {
				t.Errorf("settling %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFEsRowsAreMappedToPodsByHost(t *testing.T) {
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "sr", Namespace: "ns"}}
	names := NamesOf(src, resources.ComponentFE)
	rep := &Report{At: time.Now(), Frontends: []fe.Frontend{
		{Host: "sr-fe-0.sr-fe-search.ns.svc.example.org", Role: "FOLLOWER", Alive: true},
		{Host: "sr-fe-1.sr-fe-search.ns", Role: "LEADER", Alive: true},
		{Host: "sr-fe-2.sr-fe-search.ns.svc.cluster.local", Role: "FOLLOWER"},
		{Host: "10.0.0.3", Role: "FOLLOWER", Alive: true},
		{Host: "sr-fe-3.sr-fe-search.other.svc.cluster.local", Role: "FOLLOWER", Alive: true},
	}}
	alive, leader := NodesOf(rep, names, resources.ComponentFE)
	if len(alive) != 3 || !alive[0] || !alive[1] || alive[2] || leader != 1 {
		t.Errorf("alive %v, leader %d: want pods 0 and 1 alive, 2 down, 1 leading, any cluster domain", alive, leader)
	}
	if w := GateWord(rep, src, resources.ComponentFE); w == nil || w.Leader != 1 || !w.At.Equal(rep.At) {
		t.Errorf("gate word %+v", w)
	}
	if w := GateWord(&Report{Err: errors.New("x")}, src, resources.ComponentFE); w == nil || w.Err == nil || w.Leader != -1 {
		t.Errorf("gate word of a failed read %+v, want its error and no leader", w)
	}
	if GateWord(nil, src, resources.ComponentFE) != nil {
		t.Error("a gate word without a report")
	}
}
