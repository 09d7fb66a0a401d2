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
