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

package helm

import (
	"testing"

	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
)

func TestChartsLintWithoutErrors(t *testing.T) {
	cases := []struct {
		chart  string
		values map[string]any
	}{
		{operatorChart, nil},
		{operatorChart, map[string]any{"starrocksOperator": map[string]any{"watchNamespace": "starrocks", "serviceMonitor": map[string]any{"enabled": true}}}},
		{starrocksChart, map[string]any{"initPassword": map[string]any{"enabled": true, "password": "x"}, "metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}, "datadog": map[string]any{"log": map[string]any{"enabled": true}, "metrics": map[string]any{"enabled": true}}}},
		{starrocksChart, nil},
		{starrocksChart, map[string]any{"starrocksCluster": map[string]any{"enabledCn": true}, "starrocksFeProxySpec": map[string]any{"enabled": true}}},
		{parentChart, nil},
		{warehouseChart, map[string]any{"spec": map[string]any{"starRocksClusterName": "kube-starrocks"}}},
	}
	for _, tc := range cases {
		name := tc.chart
		if tc.values != nil {
			name += " with optional parts on"
		}
		t.Run(name, func(t *testing.T) {
			linter := lint.AllWithKubeVersion(chartPath(t, tc.chart), tc.values, "starrocks-system", kubeVersion)
			for _, m := range linter.Messages {
				if m.Severity >= support.ErrorSev {
					t.Errorf("lint error: %s", m)
				} else {
					t.Logf("lint: %s", m)
				}
			}
		})
	}
}
