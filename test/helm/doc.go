// Package helm tests the Helm charts under charts/ with Helm's Go SDK: lint,
// rendering of the operator's knobs and of every upstream key, the values
// schemas, freshness of the generated chart files, equality with the upstream
// kube-starrocks chart v1.11.5's renderings up to an allow-list of intended
// differences, acceptance of the rendered manifests by a real kube-apiserver,
// the CRD step and a helm upgrade from an upstream release against a real API
// server, and the operator running with exactly the RBAC the chart grants.
package helm
