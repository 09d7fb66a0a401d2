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
