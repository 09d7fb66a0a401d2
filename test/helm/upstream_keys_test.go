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
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// These tests pin the upstream keys' behaviour without the upstream reference
// (TestChartsRenderWhatUpstreamRenders compares with it when it is there).

// componentSpec renders the starrocks chart and returns one component's spec.
func componentSpec(t *testing.T, values, spec string) map[string]any {
	t.Helper()
	objs := mustRender(t, starrocksChart, "starrocks", values)
	m, ok, _ := unstructured.NestedMap(only(t, objs, "StarRocksCluster").Object, "spec", spec)
	if !ok {
		t.Fatalf("spec.%s not rendered", spec)
	}
	return m
}

func named(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range find(objs, kind) {
		if o.GetName() == name {
			return o
		}
	}
	return nil
}

func TestUpstreamDefaultsAndNames(t *testing.T) {
	objs := mustRender(t, parentChart, "starrocks", "")
	cluster := only(t, objs, "StarRocksCluster")
	if cluster.GetName() != "kube-starrocks" {
		t.Errorf("default cluster name %q, want upstream's kube-starrocks whatever the release (%s)", cluster.GetName(), releaseName)
	}
	fe, _, _ := unstructured.NestedMap(cluster.Object, "spec", "starRocksFeSpec")
	want := map[string]any{
		"image":     "starrocks/fe-ubuntu:4.1-latest",
		"requests":  map[string]any{"cpu": float64(4), "memory": "4Gi"},
		"limits":    map[string]any{"cpu": float64(8), "memory": "8Gi"},
		"feEnvVars": []any{map[string]any{"name": "TZ", "value": "Asia/Shanghai"}},
	}
	for k, v := range want {
		if !reflect.DeepEqual(fe[k], v) {
			t.Errorf("FE %s = %#v, want %#v", k, fe[k], v)
		}
	}
	conf, _, _ := unstructured.NestedString(named(objs, "ConfigMap", "kube-starrocks-fe-cm").Object, "data", "fe.conf")
	if !strings.Contains(conf, "-Xmx8192m") {
		t.Errorf("FE heap is not upstream's 8192m:\n%s", conf)
	}
	cn := componentSpec(t, "starrocksCluster:\n  enabledCn: true\nstarrocksCnSpec:\n  storageSpec:\n    name: cn\n", "starRocksCnSpec")
	if _, ok := cn["replicas"]; ok {
		t.Errorf("CN replicas rendered without a value: %v", cn["replicas"])
	}
	vols, _ := cn["storageVolumes"].([]any)
	sizes := map[string]any{}
	for _, v := range vols {
		m := v.(map[string]any)
		sizes[m["name"].(string)] = m["storageSize"]
	}
	if !reflect.DeepEqual(sizes, map[string]any{"cn-data": "1Ti", "cn-log": "20Gi", "cn-spill": "0Gi"}) {
		t.Errorf("CN volume sizes %v, want upstream's 1Ti data, 20Gi log, 0Gi spill", sizes)
	}
}

func TestComponentValuesAreTheComponentsDefaults(t *testing.T) {
	values := `starrocksCluster:
  componentValues:
    image: {tag: "3.3.9"}
    nodeSelector: {pool: shared}
    runAsNonRoot: true
    serviceAccount: shared-sa
starrocksBeSpec:
  image: {tag: "3.3.10"}
  nodeSelector: {pool: be}
`
	fe := componentSpec(t, values, "starRocksFeSpec")
	be := componentSpec(t, values, "starRocksBeSpec")
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"FE image", fe["image"], "starrocks/fe-ubuntu:3.3.9"},
		{"BE image (own tag wins)", be["image"], "starrocks/be-ubuntu:3.3.10"},
		{"FE nodeSelector", fe["nodeSelector"], map[string]any{"pool": "shared"}},
		{"BE nodeSelector (replaced, not merged)", be["nodeSelector"], map[string]any{"pool": "be"}},
		{"FE runAsNonRoot", fe["runAsNonRoot"], true},
		{"BE serviceAccount", be["serviceAccount"], "shared-sa"},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.what, c.got, c.want)
		}
	}
}

// The values that the API server used to reject: "unlimited", map-form env
// vars, probe seconds as strings.
func TestValuesTheAPIServerRejectedAreConverted(t *testing.T) {
	fe := componentSpec(t, `starrocksFESpec:
  resources:
    limits: {cpu: unlimited, memory: 8Gi}
  feEnvVars:
    B_VAR: "2"
    A_VAR:
      valueFrom: {secretKeyRef: {name: s, key: k}}
  livenessProbeFailureSeconds: "0"
  readinessProbeFailureSeconds: 30
`, "starRocksFeSpec")
	if !reflect.DeepEqual(fe["limits"], map[string]any{"memory": "8Gi"}) {
		t.Errorf("limits = %v, want cpu left out", fe["limits"])
	}
	wantEnv := []any{
		map[string]any{"name": "TZ", "value": "Asia/Shanghai"},
		map[string]any{"name": "A_VAR", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "s", "key": "k"}}},
		map[string]any{"name": "B_VAR", "value": "2"},
	}
	if !reflect.DeepEqual(fe["feEnvVars"], wantEnv) {
		t.Errorf("feEnvVars = %#v, want %#v", fe["feEnvVars"], wantEnv)
	}
	if fe["livenessProbeFailureSeconds"] != float64(0) || fe["readinessProbeFailureSeconds"] != float64(30) {
		t.Errorf("probe seconds = %#v, %#v, want integers 0 and 30", fe["livenessProbeFailureSeconds"], fe["readinessProbeFailureSeconds"])
	}
	if _, ok := fe["startupProbeFailureSeconds"]; ok {
		t.Errorf("an unset probe is rendered")
	}
}

func TestStorageCountAndSpill(t *testing.T) {
	be := componentSpec(t, `starrocksBeSpec:
  storageSpec:
    name: be
    storageClassName: fast
    storageSize: 500Gi
    storageCount: 2
    spillStorageSize: 100Gi
    spillStorageClassName: cheap
`, "starRocksBeSpec")
	var got []string
	for _, v := range be["storageVolumes"].([]any) {
		m := v.(map[string]any)
		got = append(got, m["name"].(string)+" "+m["mountPath"].(string)+" "+m["storageClassName"].(string)+" "+m["storageSize"].(string))
	}
	want := []string{
		"be0-data /opt/starrocks/be/storage0 fast 500Gi",
		"be1-data /opt/starrocks/be/storage1 fast 500Gi",
		"be-log /opt/starrocks/be/log fast 20Gi",
		"be-spill /opt/starrocks/be/spill cheap 100Gi",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BE volumes\n%q\nwant\n%q", got, want)
	}
}

func TestConfigYamlEntrypointSidecarsMapMaxUnavailable(t *testing.T) {
	values := `starrocksFESpec:
  configyaml: {query_port: 9031, http_port: 8030}
  maxUnavailablePods: 2
  sidecarsMap:
    z-last: {image: busybox}
    a-first: {image: busybox, command: [sh]}
  entrypoint:
    script: |
      #!/bin/bash
      exec /opt/starrocks/fe_entrypoint.sh $FE_SERVICE_NAME
`
	objs := mustRender(t, starrocksChart, "starrocks", values)
	conf, _, _ := unstructured.NestedString(named(objs, "ConfigMap", "kube-starrocks-fe-cm").Object, "data", "fe.conf")
	if conf != "http_port = 8030\nquery_port = 9031" {
		t.Errorf("fe.conf from configyaml = %q", conf)
	}
	script := named(objs, "ConfigMap", "kube-starrocks-fe-entrypoint-script")
	if script == nil {
		t.Fatalf("no entrypoint ConfigMap: %s", describe(objs))
	}
	fe, _, _ := unstructured.NestedMap(only(t, objs, "StarRocksCluster").Object, "spec", "starRocksFeSpec")
	if !reflect.DeepEqual(fe["command"], []any{"bash", "-c"}) || !reflect.DeepEqual(fe["args"], []any{"/etc/starrocks/entrypoint.sh"}) {
		t.Errorf("command %v args %v", fe["command"], fe["args"])
	}
	ann := fe["annotations"].(map[string]any)
	if !shortHash.MatchString(ann["app.starrocks.io/fe-entrypoint-hash"].(string)) {
		t.Errorf("no entrypoint hash: %v", ann)
	}
	if !reflect.DeepEqual(fe["updateStrategy"], map[string]any{"rollingUpdate": map[string]any{"maxUnavailable": float64(2)}}) {
		t.Errorf("updateStrategy = %v", fe["updateStrategy"])
	}
	var names []string
	for _, s := range fe["sidecars"].([]any) {
		names = append(names, s.(map[string]any)["name"].(string))
	}
	if !reflect.DeepEqual(names, []string{"a-first", "z-last"}) {
		t.Errorf("sidecars from sidecarsMap: %v", names)
	}
	if _, err := render(t, starrocksChart, "starrocks", "starrocksFESpec:\n  sidecars: [{name: a, image: b}]\n  sidecarsMap: {c: {image: d}}\n"); err == nil ||
		!strings.Contains(err.Error(), "sidecarsMap or sidecars") {
		t.Errorf("sidecars and sidecarsMap together: err = %v, want one naming both", err)
	}
}

func TestInitPassword(t *testing.T) {
	objs := mustRender(t, starrocksChart, "starrocks", "initPassword:\n  enabled: true\n  password: s3cret\n")
	secret := named(objs, "Secret", "kube-starrocks-credential")
	if secret == nil {
		t.Fatalf("no Secret: %s", describe(objs))
	}
	pw, _, _ := unstructured.NestedString(secret.Object, "data", "password")
	if b, _ := base64.StdEncoding.DecodeString(pw); string(b) != "s3cret" {
		t.Errorf("Secret password %q", b)
	}
	job := named(objs, "Job", "kube-starrocks-initpwd")
	if job == nil || named(objs, "ConfigMap", "kube-starrocks-initpwd-shell") == nil {
		t.Fatalf("no Job or script ConfigMap: %s", describe(objs))
	}
	containers, _, _ := unstructured.NestedSlice(job.Object, "spec", "template", "spec", "containers")
	args := containers[0].(map[string]any)["args"]
	if !reflect.DeepEqual(args, []any{"/opt/starrocks/fe_initpwd.sh", "kube-starrocks-fe-0.kube-starrocks-fe-search", "9030"}) {
		t.Errorf("Job args %v", args)
	}
	for spec, key := range map[string]string{"starRocksFeSpec": "feEnvVars", "starRocksBeSpec": "beEnvVars"} {
		env, _, _ := unstructured.NestedSlice(only(t, objs, "StarRocksCluster").Object, "spec", spec, key)
		found := false
		for _, e := range env {
			if m := e.(map[string]any); m["name"] == "MYSQL_PWD" {
				ref, _, _ := unstructured.NestedString(m, "valueFrom", "secretKeyRef", "name")
				found = ref == "kube-starrocks-credential"
			}
		}
		if !found {
			t.Errorf("%s has no MYSQL_PWD from the Secret: %v", spec, env)
		}
	}
	// With a Secret of the user's: no Secret rendered, everything points to it.
	objs = mustRender(t, starrocksChart, "starrocks", "initPassword:\n  enabled: true\n  passwordSecret: mine\n")
	if len(find(objs, "Secret")) != 0 {
		t.Errorf("a Secret is rendered although passwordSecret names one")
	}
	if _, err := render(t, starrocksChart, "starrocks", "initPassword:\n  enabled: true\n"); err == nil {
		t.Errorf("initPassword without a password or a Secret rendered")
	}
}

func TestMonitoringAndExtras(t *testing.T) {
	objs, err := renderWith(t, starrocksChart, renderOptions{release: "starrocks", namespace: "starrocks", apiVersions: []string{"monitoring.coreos.com/v1"}}, `
starrocksCluster: {enabledCn: true}
metrics:
  serviceMonitor: {enabled: true, labels: {release: prom}}
datadog:
  log: {enabled: true, logConfig: '{"app": "sr"}'}
  metrics: {enabled: true}
secrets: [{name: s3, data: {KEY: v}}]
configMaps: [{name: extra, data: {note: hello}}]
resources: [{apiVersion: v1, kind: ServiceAccount, metadata: {name: sa-x}}]
`)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(find(objs, "ServiceMonitor")); n != 3 {
		t.Errorf("%d ServiceMonitors, want FE, BE and CN", n)
	}
	for _, want := range []string{"Secret s3", "ConfigMap extra", "ServiceAccount sa-x"} {
		kind, name, _ := strings.Cut(want, " ")
		if named(objs, kind, name) == nil {
			t.Errorf("no %s", want)
		}
	}
	be, _, _ := unstructured.NestedMap(only(t, objs, "StarRocksCluster").Object, "spec", "starRocksBeSpec")
	if got := be["annotations"].(map[string]any)["ad.datadoghq.com/be.logs"]; got != `[{"app":"sr","service":"starrocks","source":"be"}]` {
		t.Errorf("Datadog log annotation %v", got)
	}
	port, _, _ := unstructured.NestedString(be, "service", "annotations", "prometheus.io/port")
	if port != "8040" {
		t.Errorf("BE scrape port %q, want 8040", port)
	}
}
