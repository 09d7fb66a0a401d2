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

package metrics

import "testing"

func TestClassifyNamesVerbAndResourceLikeTheAuditLog(t *testing.T) {
	tests := []struct {
		method, path string
		watch        bool
		verb, res    string
	}{
		{"GET", "/apis/apps/v1/namespaces/ns/statefulsets/a-fe", false, "get", "statefulsets"},
		{"GET", "/apis/apps/v1/statefulsets", false, "list", "statefulsets"},
		{"GET", "/apis/apps/v1/statefulsets", true, "watch", "statefulsets"},
		{"GET", "/api/v1/namespaces/ns/pods", false, "list", "pods"},
		{"GET", "/api/v1/namespaces/ns", false, "get", "namespaces"},
		{"PATCH", "/apis/starrocks.com/v1/namespaces/ns/starrocksclusters/a/status", false, "patch", "starrocksclusters/status"},
		{"PATCH", "/apis/apps/v1/namespaces/ns/statefulsets/a-fe", false, "patch", "statefulsets"},
		{"POST", "/apis/events.k8s.io/v1/namespaces/ns/events", false, "create", "events"},
		{"DELETE", "/api/v1/namespaces/ns/services/a-be-service", false, "delete", "services"},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/ns/leases/x", false, "update", "leases"},
		{"GET", "/healthz", false, "get", "nonresource"},
	}
	for _, tt := range tests {
		verb, res := Classify(tt.method, tt.path, tt.watch)
		if verb != tt.verb || res != tt.res {
			t.Errorf("%s %s: got %s %s, want %s %s", tt.method, tt.path, verb, res, tt.verb, tt.res)
		}
	}
}
