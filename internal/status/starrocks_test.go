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

package status

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

func TestStarRocksWordIsReportedAndKeptUntilTheNextRead(t *testing.T) {
	src := cluster()
	be := &Component{Name: "BE", StatefulSet: sts(3, 3, 3), Replicas: 3}
	word := &StarRocksWord{
		FE:      &srv1.StarRocksNodesStatus{Alive: 3, Total: 3, Leader: "c-fe-2"},
		BE:      &srv1.StarRocksNodesStatus{Alive: 2, Total: 3, UnhealthyTablets: ptr.To[int32](12)},
		Healthy: false, Reason: srv1.ReasonNodesNotAlive, Message: "FE lists c-be-1 (BE) not Alive",
	}
	st := Compute(src, Observed{FE: fe(sts(3, 3, 3)), BE: be, StarRocks: word})
	if !reflect.DeepEqual(st.StarRocksFeStatus.Nodes, word.FE) || !reflect.DeepEqual(st.StarRocksBeStatus.Nodes, word.BE) {
		t.Errorf("nodes FE %+v BE %+v, want FE's word", st.StarRocksFeStatus.Nodes, st.StarRocksBeStatus.Nodes)
	}
	if c := cond(st, srv1.ConditionStarRocksHealthy); c.Status != metav1.ConditionFalse || c.Reason != srv1.ReasonNodesNotAlive || c.Message != word.Message {
		t.Errorf("StarRocksHealthy %+v", c)
	}
	// A reconcile between two reads has no new word: it says the same.
	src.Status = st
	again := Compute(src, Observed{FE: fe(sts(3, 3, 3)), BE: be})
	if !reflect.DeepEqual(again, st) {
		t.Errorf("status without a new read changed:\n%+v\nwas\n%+v", again, st)
	}
}

func TestNoWordNoCondition(t *testing.T) {
	st := Compute(cluster(), Observed{FE: fe(sts(3, 0, 3))})
	if c := cond(st, srv1.ConditionStarRocksHealthy); c.Type != "" {
		t.Errorf("StarRocksHealthy %+v before FE ever answered", c)
	}
}

func TestAStepShowsThroughAnOrderedRollout(t *testing.T) {
	obs := Observed{FE: fe(sts(3, 3, 3)), Step: "BE: 1 of 3 pods replaced; pod 2 (c-be-1) waits for FE", StepReason: srv1.ReasonRolloutStalled,
		Rollout: "upgrading to x: BE and CN roll first, FE waits"}
	c := cond(Compute(cluster(), obs), srv1.ConditionProgressing)
	if c.Status != metav1.ConditionTrue || c.Reason != srv1.ReasonRolloutStalled || !strings.Contains(c.Message, "pod 2 (c-be-1)") || !strings.Contains(c.Message, "FE waits") {
		t.Errorf("Progressing %+v", c)
	}
}
