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

package cluster

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// The status tells which component's values fight the graceful exit of
// the pods the reconcile builds (resources.ShutdownProblems).
func TestGracefulExitCutShortIsTold(t *testing.T) {
	if msg := scopeOf(t, feClusterOf(3), nil).gracefulExitCutShort(); msg != "" {
		t.Errorf("defaults: %q, want nothing", msg)
	}
	src := feClusterOf(3)
	src.Spec.StarRocksFeSpec.TerminationGracePeriodSeconds = ptr.To[int64](30)
	src.Spec.StarRocksBeSpec = &srv1.StarRocksBeSpec{StarRocksComponentSpec: srv1.StarRocksComponentSpec{
		StarRocksLoadSpec: srv1.StarRocksLoadSpec{Replicas: ptr.To[int32](3), ReadinessProbeFailureSeconds: ptr.To[int32](30)},
	}}
	msg := scopeOf(t, src, nil).gracefulExitCutShort()
	if !strings.HasPrefix(msg, "FE: terminationGracePeriodSeconds 30 kills FE") || strings.Contains(msg, "BE:") {
		t.Errorf("FE's grace of 30 s, BE's slow readiness (not checked): %q", msg)
	}
	// A refused spec builds nothing: the status keeps what it says.
	s := &clusterScope{src: feClusterOf(3)}
	s.src.Status.Conditions = []metav1.Condition{{Type: srv1.ConditionGracefulExitCutShort, Status: metav1.ConditionTrue, Message: "as before"}}
	if got := s.gracefulExitCutShort(); got != "as before" {
		t.Errorf("nothing built: %q, want the condition's message kept", got)
	}
}
