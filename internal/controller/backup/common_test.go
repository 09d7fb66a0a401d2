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

package backup

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// A backup does not start while its cluster rolls out, scales in or is not
// running (issue 52, rule 3): clusterBusy says why it waits.
func TestClusterBusy(t *testing.T) {
	progressing := func(reason string) []metav1.Condition {
		return []metav1.Condition{{Type: srv1.ConditionProgressing, Status: metav1.ConditionTrue, Reason: reason, Message: "BE 3 of 4"}}
	}
	for _, tc := range []struct {
		name  string
		phase srv1.Phase
		conds []metav1.Condition
		want  string // in the reason; "" when a backup may start
	}{
		{"running and settled", srv1.PhaseRunning, nil, ""},
		{"running, Progressing False", srv1.PhaseRunning, []metav1.Condition{{Type: srv1.ConditionProgressing, Status: metav1.ConditionFalse, Reason: "Settled"}}, ""},
		{"a rollout", srv1.PhaseRunning, progressing("RollingUpdate"), "is changing (RollingUpdate"},
		{"a scale-in", srv1.PhaseReconciling, progressing("ScalingIn"), "is changing (ScalingIn"},
		{"reconciling", srv1.PhaseReconciling, nil, "is reconciling, not running"},
		{"failed", srv1.PhaseFailed, nil, "is failed, not running"},
		{"never reconciled", "", nil, "is not reconciled yet, not running"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Status: srv1.StarRocksClusterStatus{Phase: tc.phase, Conditions: tc.conds}}
			got := clusterBusy(src)
			if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
				t.Errorf("clusterBusy = %q, want %q", got, tc.want)
			}
		})
	}
}
