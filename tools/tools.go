//go:build tools

// Package tools pins the control-plane binaries and code generators that the
// operator's tests and builds need, so that they build from Go modules alone.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
