// Package controller holds the reconcilers: orchestration only. Desired objects
// come from internal/resources, writes go through internal/apply and status is
// computed by internal/status.
package controller

import (
	"slices"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// Config carries what the controller needs from the command line, already validated.
type Config struct {
	// Controller holds the worker count and queue settings.
	Controller controller.Options
	// DenyList holds namespaces whose clusters are left alone.
	DenyList []string
}

// IgnoredAnnotation on a StarRocksCluster makes the operator leave it alone.
const IgnoredAnnotation = "starrocks.com/ignored"

// SetupWithManager registers the StarRocksCluster controller.
func SetupWithManager(mgr ctrl.Manager, cfg Config) error {
	r := &StarRocksClusterReconciler{
		Client:   mgr.GetClient(),
		Recorder: mgr.GetEventRecorder("starrocks-operator"),
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("starrockscluster").
		For(&srv1.StarRocksCluster{}, builder.WithPredicates(managed(cfg.DenyList))).
		WithOptions(cfg.Controller).
		Complete(r)
}

// managed filters out clusters in denied namespaces and clusters marked ignored,
// so that they never reach a worker.
func managed(denyList []string) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool {
		return !slices.Contains(denyList, o.GetNamespace()) && o.GetAnnotations()[IgnoredAnnotation] != "true"
	})
}
