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
	"slices"
	"strings"
	"testing"
)

// No value is silently dropped (DESIGN §8): every chart's schema takes only
// the keys its values.yaml has, and an unknown key fails the render naming it.
func TestUnknownKeysFailTheRenderNamingThem(t *testing.T) {
	cases := []struct {
		name, chart, values, key string
	}{
		{"operator chart, a top-level typo", operatorChart, "nameOveride: x\n", "nameOveride"},
		{"operator chart, a misspelled knob", operatorChart, "starrocksOperator:\n  maxConcurentReconciles: 4\n", "maxConcurentReconciles"},
		{"operator chart, inside image", operatorChart, "starrocksOperator:\n  image:\n    tagg: v1\n", "tagg"},
		{"operator chart, inside global.rbac", operatorChart, "global:\n  rbac:\n    crate: false\n", "crate"},
		{"operator chart, inside serviceMonitor", operatorChart, "starrocksOperator:\n  serviceMonitor:\n    intervall: 10s\n", "intervall"},
		{"kube-starrocks, a top-level key that is no subchart", parentChart, "operators:\n  starrocksOperator:\n    replicaCount: 2\n", "operators"},
		{"kube-starrocks, a top-level key of the starrocks chart", parentChart, "starrocksCluster:\n  enabledCn: true\n", "starrocksCluster"},
		{"kube-starrocks, a misspelled operator knob", parentChart, "operator:\n  starrocksOperator:\n    feSsIMode: REQUIRED\n", "feSsIMode"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := render(t, c.chart, "starrocks", c.values)
			if err == nil {
				t.Fatalf("%s rendered with %q", c.chart, c.values)
			}
			if msg := err.Error(); !strings.Contains(msg, "schema") || !strings.Contains(msg, c.key) {
				t.Errorf("the error does not come from the schema or does not name %s: %v", c.key, err)
			}
		})
	}
	t.Run("control: the known keys render", func(t *testing.T) {
		mustRender(t, parentChart, "starrocks", "global: {}\noperator:\n  nameOverride: kube-starrocks\nstarrocks:\n  timeZone: UTC\n")
		mustRender(t, operatorChart, "starrocks", "starrocksOperator:\n  grafanaDashboard:\n    enabled: true\n  prometheusRule:\n    enabled: false\n  metricsSecure: true\n")
	})
}

// upstreamNext sets every key the upstream charts added after v1.11.5 (as of
// the upstream chart whose operator image is v1.11.6), each to a value this
// chart takes: docs/helm-migration.md lists them and what we do with each.
const upstreamNext = `operator:
  starrocksOperator:
    feSslMode: REQUIRED
starrocks:
  datadog:
    log:
      enableMultilineLogParsing: false
  starrocksFESpec:
    service:
      externalTrafficPolicy: ""
  starrocksBeSpec:
    service:
      externalTrafficPolicy: ""
  starrocksCnSpec:
    service:
      externalTrafficPolicy: ""
  starrocksFeProxySpec:
    service:
      externalTrafficPolicy: ""
`

func TestUpstreamNextValues(t *testing.T) {
	mustRender(t, parentChart, "starrocks", upstreamNext)

	// What we cannot honour fails the render, naming the key.
	for _, c := range []struct{ name, values, want string }{
		{"multiline log parsing", "starrocks:\n  datadog:\n    log:\n      enabled: true\n      enableMultilineLogParsing: true\n", "datadog.log.enableMultilineLogParsing"},
		{"FE external traffic policy", "starrocks:\n  starrocksFESpec:\n    service:\n      type: NodePort\n      externalTrafficPolicy: Local\n", "starrocksFESpec.service.externalTrafficPolicy=\"Local\""},
		{"BE external traffic policy", "starrocks:\n  starrocksBeSpec:\n    service:\n      externalTrafficPolicy: Local\n", "starrocksBeSpec.service.externalTrafficPolicy"},
		{"CN external traffic policy", "starrocks:\n  starrocksCluster:\n    enabledCn: true\n  starrocksCnSpec:\n    service:\n      externalTrafficPolicy: Cluster\n", "starrocksCnSpec.service.externalTrafficPolicy"},
		{"FE proxy external traffic policy", "starrocks:\n  starrocksFeProxySpec:\n    enabled: true\n    service:\n      externalTrafficPolicy: Local\n", "starrocksFeProxySpec.service.externalTrafficPolicy"},
		{"an SSL mode the upstream does not have", "operator:\n  starrocksOperator:\n    feSslMode: STRICT\n", "feSslMode"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := render(t, parentChart, "starrocks", c.values)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one naming %s", err, c.want)
			}
		})
	}
}

// --fe-credentials-secret comes from starrocksOperator.feCredentialsSecret,
// and only when it is set.
func TestFECredentialsSecretReachesTheFlag(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"", ""},
		{"starrocks/operator-fe-user", "--fe-credentials-secret=starrocks/operator-fe-user"},
		{"operator-fe-user", "--fe-credentials-secret=operator-fe-user"},
	} {
		args := operatorArgs(t, mustRender(t, operatorChart, "starrocks", "starrocksOperator:\n  feCredentialsSecret: \""+c.value+"\"\n"))
		has := slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--fe-credentials-secret") })
		if c.want == "" && has || c.want != "" && !slices.Contains(args, c.want) {
			t.Errorf("feCredentialsSecret %q: args %q, want %q", c.value, args, c.want)
		}
	}
	if _, err := render(t, operatorChart, "starrocks", "starrocksOperator:\n  feCredentialsSecret: a/b/c\n"); err == nil || !strings.Contains(err.Error(), "feCredentialsSecret") {
		t.Errorf("a malformed Secret reference: %v, want the schema naming feCredentialsSecret", err)
	}
}

// A key the upstream chart drops without a word fails ours, naming it: the
// reference values files that set one (ignoredByUpstream) are refused as
// given, and compared with the upstream's rendering without it.
func TestKeysTheUpstreamIgnoresFailOurs(t *testing.T) {
	seen := 0
	for _, c := range loadUpstreamCases(t) {
		if c.original == "" {
			continue
		}
		seen++
		_, err := render(t, parentChart, c.namespace, c.original)
		if err == nil || !strings.Contains(err.Error(), "additional properties 'timeZone' not allowed") {
			t.Errorf("%s: our chart took the values as given (%v); want the schema naming timeZone", c.name, err)
		}
	}
	if seen == 0 {
		t.Fatal("no reference values file sets a key the upstream ignores: nothing shown")
	}
}

// dnsPolicy, dnsConfig and seccompProfile reach the StarRocksCluster when set
// (ours; upstream PR #696, #777), and are not written when they are not.
func TestDNSAndSeccompReachTheCluster(t *testing.T) {
	const values = `starrocksFESpec:
  dnsPolicy: None
  dnsConfig:
    nameservers: [10.0.0.10]
  seccompProfile:
    type: RuntimeDefault
starrocksFeProxySpec:
  enabled: true
  dnsPolicy: ClusterFirst
`
	fe := componentSpec(t, values, "starRocksFeSpec")
	if fe["dnsPolicy"] != "None" || fe["dnsConfig"] == nil || fe["seccompProfile"] == nil {
		t.Errorf("FE spec %v lacks dnsPolicy, dnsConfig or seccompProfile", fe)
	}
	if proxy := componentSpec(t, values, "starRocksFeProxySpec"); proxy["dnsPolicy"] != "ClusterFirst" {
		t.Errorf("FE proxy spec %v lacks dnsPolicy", proxy)
	}
	be := componentSpec(t, values, "starRocksBeSpec")
	for _, k := range []string{"dnsPolicy", "dnsConfig", "seccompProfile"} {
		if _, ok := be[k]; ok {
			t.Errorf("BE spec has %s though it was not set: %v", k, be[k])
		}
	}
}
