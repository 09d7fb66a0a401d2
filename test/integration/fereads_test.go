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

package integration_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/test/silentfe"
	"github.com/srscale/starrocks-operator/test/faulttable"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// readCluster is a cluster the door reads, as a reconcile would look at it.
func readCluster(name string) *srv1.StarRocksCluster {
	return &srv1.StarRocksCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "reads", Name: name, UID: types.UID("uid-" + name)},
		Spec:       srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{}},
	}
}

// Issue 34 item 25, on the operator's door to FE with its real timeouts,
// a simulated FE that answers and FEs that accept and say nothing (a hung
// FE process): what the door reads, and how often, with and without them.
func TestFEReadsOfOneClusterDoNotWaitOnOthersOrOnTheirSlowestStatement(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on FE timeouts")
	}
	t.Run("a slow /statistic: FE's nodes are read, the tablet count is told missing", func(t *testing.T) {
		f := simstarrocks.Start(t, simstarrocks.Options{StatementDelay: func(stmt string) time.Duration {
			if strings.Contains(stmt, "/statistic") {
				return simstarrocks.Hang // sheet §14: '/statistic' walks every tablet
			}
			return 0
		}})
		f.BootstrapFrontend("fe-0", 9010)
		door := feaccess.New(nil, feaccess.Options{LookEvery: time.Second, Resolve: func(fe.Target) (string, string) { return f.QueryAddress(), f.HTTPURL() }})
		src := readCluster("slow")
		var rep *feaccess.Report
		eventually(t, time.Minute, "a report", func(context.Context) (bool, error) {
			rep = door.Look(src, "")
			return rep != nil, nil
		})
		if rep.Err != nil || len(rep.Frontends) != 1 {
			t.Fatalf("report: error %v, %d FE rows; want FE's nodes read without error", rep.Err, len(rep.Frontends))
		}
		if rep.StatisticErr == nil || !strings.Contains(rep.StatisticErr.Error(), "/statistic") {
			t.Errorf("StatisticErr %v, want the slow '/statistic' named", rep.StatisticErr)
		}
	})
	t.Run("hung FEs fill the read slots: a cluster whose FE answers is read as often as alone, each hung one in turn", func(t *testing.T) {
		const dead = 24 // three times the operator's 8 read slots
		healthy := simstarrocks.Start(t, simstarrocks.Options{})
		healthy.BootstrapFrontend("fe-0", 9010)
		hung := map[string]*silentfe.FE{}
		for i := range dead {
			hung[fmt.Sprintf("dead-%d-fe-service", i)] = silentfe.Start(t)
		}
		door := feaccess.New(nil, feaccess.Options{LookEvery: time.Second, Resolve: func(target fe.Target) (string, string) {
			if h := hung[target.Service]; h != nil {
				return h.Address(), "http://" + h.Address()
			}
			return healthy.QueryAddress(), healthy.HTTPURL()
		}})
		live := readCluster("live")
		// reads counts the live cluster's reports, one per read, over d,
		// looking every 100 ms at the hung clusters first (as a queue that
		// holds many more of them would) and at the live one last.
		reads := func(d time.Duration, withDead bool) int {
			seen := map[time.Time]bool{}
			for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				if withDead {
					for i := range dead {
						door.Look(readCluster(fmt.Sprintf("dead-%d", i)), "")
					}
				}
				if rep := door.Look(live, ""); rep != nil && rep.Err == nil {
					seen[rep.At] = true
				}
			}
			return len(seen)
		}
		alone := reads(10*time.Second, false)
		contended := reads(20*time.Second, true) / 2
		t.Logf("the live cluster's reads per 10 s: %d alone, %d beside %d hung FEs", alone, contended, dead)
		if alone < 3 {
			t.Fatalf("%d reads in 10 s alone: the measurement says nothing", alone)
		}
		if 2*contended < alone {
			t.Errorf("beside %d hung FEs the live cluster was read %d times per 10 s, %d alone: starved", dead, contended, alone)
		}
		var never []string
		for name, h := range hung {
			if h.Accepted() == 0 {
				never = append(never, name)
			}
		}
		if len(never) > 0 {
			t.Errorf("%d of %d hung FEs were never asked in 20 s: %v", len(never), dead, never)
		}
		recordFault(t, faulttable.Row{Fault: "FEs that never answer, beside a cluster whose FE answers",
			Injected:  fmt.Sprintf("%d clusters whose FE accepts and says nothing (3× the 8 read slots), looked at every 100 ms, through the operator's door with its real timeouts", dead),
			Converged: fmt.Sprintf("the live cluster read %d times per 10 s beside them, %d alone; every hung FE asked in turn", contended, alone),
			Lost:      "–"})
	})
}
