// Package helm tests the Helm charts under charts/ with Helm's Go SDK: lint,
// rendering of the operator's knobs, the values schema, freshness of the
// generated chart files, acceptance of the rendered manifests by a real
// kube-apiserver, and the operator running with exactly the RBAC the chart grants.
package helm
