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

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// feTLSFlags returns the operator arguments of FE's TLS.
func feTLSFlags(args []string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "--fe-ssl-mode") || strings.HasPrefix(a, "--fe-ca-file") {
			out = append(out, a)
		}
	}
	return out
}

// The upstream's feSslMode reaches --fe-ssl-mode in both charts, with the
// upstream's default; a verifying mode mounts the CA Secret and points
// --fe-ca-file at it.
func TestFESSLModeRendersAsTheOperatorFlag(t *testing.T) {
	cases := []struct {
		name   string
		values string
		want   []string
		secret string
	}{{
		name: "default is the upstream's PREFERRED",
		want: []string{"--fe-ssl-mode=PREFERRED"},
	}, {
		name:   "REQUIRED, as an upstream values file sets it",
		values: "starrocksOperator:\n  feSslMode: REQUIRED\n",
		want:   []string{"--fe-ssl-mode=REQUIRED"},
	}, {
		name:   "DISABLED in lower case, as the upstream's flag takes it",
		values: "starrocksOperator:\n  feSslMode: disabled\n",
		want:   []string{"--fe-ssl-mode=disabled"},
	}, {
		name:   "VERIFY_IDENTITY mounts the CA Secret",
		values: "starrocksOperator:\n  feSslMode: VERIFY_IDENTITY\n  feCaSecret:\n    name: fe-ca\n    key: bundle.pem\n",
		want:   []string{"--fe-ssl-mode=VERIFY_IDENTITY", "--fe-ca-file=/etc/starrocks-operator/fe-ca/bundle.pem"},
		secret: "fe-ca",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, chart := range []string{operatorChart, parentChart} {
				values := tc.values
				if chart == parentChart {
					values = nest(values)
				}
				objs := mustRender(t, chart, "starrocks-system", values)
				if got := feTLSFlags(operatorArgs(t, objs)); !slices.Equal(got, tc.want) {
					t.Errorf("%s: FE TLS flags = %q, want %q", chart, got, tc.want)
				}
				if got := caSecretMounted(t, objs); got != tc.secret {
					t.Errorf("%s: CA Secret mounted %q, want %q", chart, got, tc.secret)
				}
			}
		})
	}
}

// caSecretMounted is the Secret the operator pod mounts at the CA directory, "" for none.
func caSecretMounted(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	dep := only(t, objs, "Deployment")
	vols, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "volumes")
	mounts, _, _ := unstructured.NestedSlice(operatorContainer(t, objs), "volumeMounts")
	mounted := false
	for _, m := range mounts {
		mm, _ := m.(map[string]any)
		if mm["name"] == "fe-ca" && mm["mountPath"] == "/etc/starrocks-operator/fe-ca" && mm["readOnly"] == true {
			mounted = true
		}
	}
	for _, v := range vols {
		vm, _ := v.(map[string]any)
		if name, _, _ := unstructured.NestedString(vm, "secret", "secretName"); vm["name"] == "fe-ca" && mounted {
			return name
		}
	}
	return ""
}

func TestFESSLModeValuesAreChecked(t *testing.T) {
	cases := []struct {
		name, values, key string
	}{
		{"a mode that does not exist", "starrocksOperator:\n  feSslMode: ON\n", "feSslMode"},
		{"a boolean", "starrocksOperator:\n  feSslMode: true\n", "feSslMode"},
		{"mixed case", "starrocksOperator:\n  feSslMode: Required\n", "feSslMode"},
		{"a verifying mode without the CA Secret", "starrocksOperator:\n  feSslMode: VERIFY_CA\n", "feCaSecret"},
		{"an unknown key of the CA Secret", "starrocksOperator:\n  feCaSecret:\n    secretName: x\n", "secretName"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, chart := range []string{operatorChart, parentChart} {
				values := tc.values
				if chart == parentChart {
					values = nest(values)
				}
				_, err := render(t, chart, "starrocks-system", values)
				if err == nil || !strings.Contains(err.Error(), tc.key) {
					t.Errorf("%s: %v, want a failed render naming %s", chart, err, tc.key)
				}
			}
		})
	}
}
