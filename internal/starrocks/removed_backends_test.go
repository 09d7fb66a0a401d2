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
	"strings"
	"testing"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

func TestDropRemovedBackends(t *testing.T) {
	two := shared([]fe.Backend{be(0, false, 0), be(1, false, 0)})
	for i := range two {
		two[i].Alive = false // their pods are gone
	}
	other := fe.Backend{Host: "other-be-0.other-be-search.ns.svc.cluster.local", HeartbeatPort: 9050, SharedData: true}
	removed := func(word ...fe.Backend) RemovedBackends {
		return RemovedBackends{Names: beNames, Removed: true, Word: &Report{Backends: word}, Every: 10 * time.Second}
	}
	// plan plans as the executor does: FE's report, when asked for, is rep.
	plan := func(in RemovedBackends, rep *Report) (Step[struct{}], bool) {
		st, _ := DropRemovedBackends(in, struct{}{}, Reads{})
		if !st.Needs.Report {
			return st, false
		}
		r := Reads{Report: rep}
		r.Read.Report = true
		st, _ = DropRemovedBackends(in, struct{}{}, r)
		return st, true
	}
	for _, tc := range []struct {
		name  string
		in    RemovedBackends
		rep   *Report
		read  bool
		drops []string
	}{
		{name: "the removed BE spec's shared-data BEs are dropped once its pods are gone", in: removed(append(two, other)...), rep: &Report{Backends: append(two, other)}, read: true,
			drops: []string{be(0, false, 0).Address(), be(1, false, 0).Address()}},
		{name: "FE's last word lists none of them: FE is not read", in: removed(other)},
		{name: "no health read yet: FE is not read", in: with(removed(), func(in *RemovedBackends) { in.Word = nil })},
		{name: "a pod of the removed StatefulSet still runs: it is dropped once gone", in: with(removed(two...), func(in *RemovedBackends) { in.Running = true })},
		{name: "a BE spec the user has not let go (or still there): nothing", in: with(removed(two...), func(in *RemovedBackends) { in.Removed = false })},
		{name: "shared-nothing BEs may hold the only replica: left alone", in: removed(be(0, false, 4), be(1, false, 4))},
		{name: "FE's report since lists none: dropped already, nothing sent", in: removed(two...), rep: &Report{Backends: []fe.Backend{other}}, read: true},
		{name: "FE does not answer: nothing sent", in: removed(two...), rep: &Report{Err: errors.New("dial tcp: i/o timeout")}, read: true},
		{name: "FE's report not in yet: nothing sent", in: removed(two...), rep: nil, read: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, read := plan(tc.in, tc.rep)
			var drops []string
			for _, s := range st.Statements {
				drops = append(drops, s.(fe.DropBackend).Backend)
			}
			if read != tc.read || strings.Join(drops, ",") != strings.Join(tc.drops, ",") {
				t.Fatalf("read %v, dropped %v; want %v, %v", read, drops, tc.read, tc.drops)
			}
			if len(drops) > 0 {
				if len(st.Events) != 1 || st.Events[0].Reason != srv1.ReasonBackendsDropped || st.Failed == nil {
					t.Errorf("events %+v, want one %s, and what to do when FE refuses", st.Events, srv1.ReasonBackendsDropped)
				}
				if f, _ := st.Failed(errors.New("x")); len(f.Statements) > 0 || f.After != 10*time.Second {
					t.Errorf("failed: %+v, want FE asked again on its read rate", f)
				}
			}
		})
	}
}
