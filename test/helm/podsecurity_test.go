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
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// restrictedValues are the kube-starrocks values of a user whose namespace
// enforces Pod Security "restricted": a non-root security context for the
// components (runAsNonRoot, RuntimeDefault seccomp, every capability
// dropped), every component on, the FE proxy and the init-password Job too.
const restrictedValues = `
starrocks:
  initPassword:
    enabled: true
    password: s3cret
  starrocksCluster:
    enabledCn: true
  starrocksFESpec: &restricted
    runAsNonRoot: true
    seccompProfile:
      type: RuntimeDefault
    capabilities:
      drop: [ALL]
  starrocksBeSpec: *restricted
  starrocksCnSpec: *restricted
  starrocksFeProxySpec:
    enabled: true
`

// podsOf is every pod the rendering makes: the pod templates of its
// workloads, and those the operator builds from its StarRocksClusters
// (internal/resources, as the operator does).
func podsOf(t *testing.T, objs []*unstructured.Unstructured) map[string]corev1.PodTemplateSpec {
	t.Helper()
	pods := map[string]corev1.PodTemplateSpec{}
	for _, o := range objs {
		var tmpl corev1.PodTemplateSpec
		switch o.GetKind() {
		case "Deployment", "StatefulSet", "DaemonSet", "Job":
			m, ok, _ := unstructured.NestedMap(o.Object, "spec", "template")
			if !ok {
				continue
			}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &tmpl); err != nil {
				t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
			}
			pods[o.GetKind()+" "+o.GetName()] = tmpl
		case "StarRocksCluster":
			var src srv1.StarRocksCluster
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &src); err != nil {
				t.Fatal(err)
			}
			built := resources.Build(&src, resources.Configs{})
			for _, w := range []*resources.StatefulSetObjects{built.FE, built.BE, built.CN} {
				if w != nil && w.StatefulSet != nil {
					pods["operator's StatefulSet "+w.StatefulSet.Name] = w.StatefulSet.Spec.Template
				}
			}
			if built.FEProxy != nil && built.FEProxy.Deployment != nil {
				pods["operator's Deployment "+built.FEProxy.Deployment.Name] = built.FEProxy.Deployment.Spec.Template
			}
		}
	}
	return pods
}

// restrictedViolations evaluates each pod with the Pod Security admission
// library at level restricted, latest version.
func restrictedViolations(t *testing.T, pods map[string]corev1.PodTemplateSpec) []string {
	t.Helper()
	eval, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for name, p := range pods {
		res := policy.AggregateCheckResults(eval.EvaluatePod(psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}, &p.ObjectMeta, &p.Spec))
		if !res.Allowed {
			out = append(out, fmt.Sprintf("%s: %s", name, res.ForbiddenDetail()))
		}
	}
	return out
}

func TestEveryPodPassesRestrictedWhenTheUserAsksForIt(t *testing.T) {
	objs := mustRender(t, parentChart, "tenant", restrictedValues)
	pods := podsOf(t, objs)
	var names []string
	for n := range pods {
		names = append(names, n)
	}
	t.Logf("pods checked: %s", strings.Join(names, "; "))
	for _, want := range []string{"Job kube-starrocks-initpwd", "operator's Deployment kube-starrocks-fe-proxy", "operator's StatefulSet kube-starrocks-cn"} {
		if _, ok := pods[want]; !ok {
			t.Fatalf("no %s among the pods: %s", want, strings.Join(names, "; "))
		}
	}
	if v := restrictedViolations(t, pods); len(v) > 0 {
		t.Errorf("pods that Pod Security \"restricted\" refuses:\n  %s", strings.Join(v, "\n  "))
	}
}

// The control: the defaults, the upstream's, run as root and are refused.
func TestTheDefaultsAreNotRestricted(t *testing.T) {
	objs := mustRender(t, parentChart, "tenant", "starrocks:\n  initPassword:\n    enabled: true\n    password: s3cret\n  starrocksFeProxySpec:\n    enabled: true\n")
	v := restrictedViolations(t, podsOf(t, objs))
	t.Logf("refused by default:\n  %s", strings.Join(v, "\n  "))
	if len(v) == 0 {
		t.Error("every pod passes restricted by default: the check above shows nothing")
	}
}
