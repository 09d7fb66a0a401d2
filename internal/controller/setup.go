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

// Package controller is the wiring: it scopes the manager's cache, sets up
// the StarRocksCluster and StarRocksWarehouse controllers with their watches,
// and gives both one door to FE. The reconcilers are in
// internal/controller/cluster and internal/controller/warehouse; what both
// share is one floor down, in internal/controller/frontend (the executor of
// StarRocks steps) and internal/reconcile (the kit).
package controller

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/controller/backup"
	"github.com/srscale/starrocks-operator/internal/controller/cluster"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// Config carries what the controller needs from the command line, already validated.
type Config struct {
	// Controller holds the worker count and queue settings.
	Controller controller.Options
	// DenyList holds namespaces whose clusters are left alone.
	DenyList []string
	// Namespace, when set, is the only namespace watched.
	Namespace string
	// Build holds the builders' operator-wide settings.
	Build resources.Options
	// FE locates a cluster's FE for the features that talk to StarRocks
	// (warehouses, shared-data CN cleanup); nil means DNS (fe.DNS). Tests
	// point it at a stand-in.
	FE fe.Resolver
	// FETLS secures the operator's MySQL connections to FE (--fe-ssl-mode,
	// --fe-ca-file); the zero value is PREFERRED.
	FETLS fe.TLS
	// FECredentials is the Secret the operator logs in to FE with
	// (--fe-credentials-secret); an empty Name logs in as root with
	// MYSQL_PWD, an empty Namespace means each cluster's own namespace.
	FECredentials types.NamespacedName
	// FELookEvery is the least time between two reads of one cluster's FE
	// by the StarRocks-aware phases (scale-in, rollouts, health); zero
	// means 10 s. Tests shorten it.
	FELookEvery time.Duration
	// SyncPeriod is the manager's cache resync period: outside rollouts, FE
	// is read for the status at most once per period; zero means 2 min.
	SyncPeriod time.Duration
	// ImageWaitLimit bounds each metadata image step of a version change
	// (starrocks.ImageWaitLimit when zero). Tests shorten it.
	ImageWaitLimit time.Duration
	// EnableBackup starts the backup controllers (--enable-backup;
	// setup_backup.go), with Backup's settings.
	EnableBackup bool
	Backup       backup.Config
}

// reconcileTimeout bounds one reconcile, every API call in it included.
const reconcileTimeout = time.Minute

// ScopeCache limits the manager's informers for the kinds the operator owns
// to objects carrying the upstream's owner label, so that a big cluster's other
// workloads never fill the operator's memory, and keeps only what status needs
// of each pod.
func ScopeCache(opts *cache.Options) {
	owned, err := labels.NewRequirement(resources.OwnerLabel, selection.Exists, nil)
	if err != nil {
		panic(err)
	}
	sel := labels.NewSelector().Add(*owned)
	if opts.ByObject == nil {
		opts.ByObject = map[client.Object]cache.ByObject{}
	}
	for _, o := range []client.Object{&appsv1.StatefulSet{}, &appsv1.Deployment{}, &corev1.Service{}, &corev1.ConfigMap{}, &autoscalingv2.HorizontalPodAutoscaler{}, &policyv1.PodDisruptionBudget{}} {
		opts.ByObject[o] = cache.ByObject{Label: sel}
	}
	opts.ByObject[&corev1.Pod{}] = cache.ByObject{Label: sel, Transform: slimPod}
	opts.DefaultTransform = slimManagedFields
}

// slimManagedFields keeps of an object's managedFields who wrote it and how
// (manager, operation, subresource, API version) and drops the field sets,
// most of their size. The applier needs no more to know whether a create of
// ours or the upstream operator's Update still owns fields (apply.mustAdopt).
// A cached object must never be sent back whole with an Update: the API
// server would take these empty entries as the object's new ownership.
func slimManagedFields(obj any) (any, error) {
	o, ok := obj.(client.Object)
	if !ok {
		return obj, nil
	}
	mf := o.GetManagedFields()
	for i := range mf {
		mf[i] = metav1.ManagedFieldsEntry{Manager: mf[i].Manager, Operation: mf[i].Operation, Subresource: mf[i].Subresource, APIVersion: mf[i].APIVersion}
	}
	return o, nil
}

// slimMetadata keeps of a user's ConfigMap's metadata what the operator
// uses (names and resourceVersion): annotations, such as a kubectl
// last-applied copy of the whole ConfigMap, would otherwise fill memory in a
// cluster-wide cache.
func slimMetadata(obj any) (any, error) {
	if o, ok := obj.(client.Object); ok {
		o.SetManagedFields(nil)
		o.SetAnnotations(nil)
	}
	return obj, nil
}

// slimPod keeps what status reads: names, labels, phase, conditions and
// container states; of the annotations, the operator's own marks: an FE
// dropped from FE's group (srv1.DroppedFromFEGroupAnnotation), a BE it
// asked FE to decommission (srv1.DecommissionedByOperatorAnnotation).
func slimPod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	p.ManagedFields = nil
	var kept map[string]string
	for _, mark := range []string{srv1.DroppedFromFEGroupAnnotation, srv1.DecommissionedByOperatorAnnotation} {
		if v, ok := p.Annotations[mark]; ok {
			if kept == nil {
				kept = map[string]string{}
			}
			kept[mark] = v
		}
	}
	p.Annotations = kept
	p.Spec = corev1.PodSpec{NodeName: p.Spec.NodeName}
	for i := range p.Status.ContainerStatuses {
		p.Status.ContainerStatuses[i].LastTerminationState = corev1.ContainerState{}
	}
	p.Status.InitContainerStatuses = nil
	return p, nil
}

// SetupWithManager registers the StarRocksCluster controller and, when the
// API server serves the kind, the StarRocksWarehouse one.
func SetupWithManager(mgr ctrl.Manager, cfg Config) error {
	configMetadata, configs, cmMeta, err := watchConfigMaps(mgr, cfg)
	if err != nil {
		return err
	}

	r := cluster.NewReconciler(mgr.GetClient(), mgr.GetEventRecorder("starrocks-operator"), configs, cfg.DenyList)
	r.APIReader = mgr.GetAPIReader()
	r.BuildOptions = cfg.Build
	r.SyncPeriod = cfg.SyncPeriod
	r.ImageWaitLimit = cfg.ImageWaitLimit
	r.Applier.Reader = mgr.GetAPIReader() // adoption needs managedFields, which the cache drops
	if cfg.Controller.ReconciliationTimeout == 0 {
		// No worker waits forever on a slow API server: the reconcile fails and is retried.
		cfg.Controller.ReconciliationTimeout = reconcileTimeout
	}
	r.FE = feaccess.New(mgr.GetAPIReader(), feaccess.Options{Resolve: cfg.FE, TLS: cfg.FETLS,
		Credentials: cfg.FECredentials, LookEvery: cfg.FELookEvery, Cache: mgr.GetClient(), DNSDomainSuffix: cfg.Build.DNSDomainSuffix})
	// Children live in their cluster's namespace: a denied namespace's
	// objects never reach the queue, whatever watch sees them.
	allowed := reconcile.NotDenied(cfg.DenyList)
	// What Owns would watch, at reconcile.FollowUpPriority: what our objects
	// and pods ask for waits behind new clusters and spec changes.
	owner := reconcile.FollowUp(handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &srv1.StarRocksCluster{}, handler.OnlyControllerOwner()))
	r.StartApart = cfg.Controller.MaxConcurrentReconciles > 1
	if r.StartApart {
		r.WorkersShort = workersShort(&cfg.Controller, clusterController, mgr.GetLogger(), r.Running)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		Named(clusterController).
		For(&srv1.StarRocksCluster{}, builder.WithPredicates(reconcile.Managed(cfg.DenyList), reconcile.SpecOrResync())).
		Watches(&appsv1.StatefulSet{}, owner, builder.WithPredicates(allowed, reconcile.StatefulSetChanged())).
		Watches(&appsv1.Deployment{}, owner, builder.WithPredicates(allowed, reconcile.DeploymentChanged())).
		Watches(&corev1.Service{}, owner, builder.WithPredicates(allowed, reconcile.OwnedObjectChanged())).
		Watches(&corev1.ConfigMap{}, owner, builder.WithPredicates(allowed, reconcile.OwnedObjectChanged())).
		Watches(&autoscalingv2.HorizontalPodAutoscaler{}, owner, builder.WithPredicates(allowed, predicate.GenerationChangedPredicate{})).
		Watches(&policyv1.PodDisruptionBudget{}, owner, builder.WithPredicates(allowed, reconcile.SpecOrMetadataChanged())).
		Watches(&corev1.Pod{}, reconcile.FollowUp(handler.EnqueueRequestsFromMapFunc(cluster.OfPod)), builder.WithPredicates(allowed, reconcile.PodChanged())).
		WatchesRawSource(source.Kind(configMetadata, cmMeta,
			handler.TypedEnqueueRequestsFromMapFunc(r.UsingConfigMap),
			predicate.NewTypedPredicateFuncs(func(o *metav1.PartialObjectMetadata) bool { return !slices.Contains(cfg.DenyList, o.Namespace) }),
			reconcile.ConfigMapContentChanged())).
		WithOptions(cfg.Controller).
		Complete(r)
	if err != nil {
		return err
	}
	// Warehouses: their own controller (setup_warehouses.go).
	if err := setupWarehouses(mgr, cfg, r.Configs, configMetadata, r.FE); err != nil {
		return err
	}
	// Backups: their own controllers (setup_backup.go).
	return setupBackup(mgr, cfg, r.Configs, r.FE)
}

// watchConfigMaps starts the metadata cache of every ConfigMap and the
// source of the data of those a cluster or warehouse names.
func watchConfigMaps(mgr ctrl.Manager, cfg Config) (cache.Cache, *reconcile.ConfigSource, *metav1.PartialObjectMetadata, error) {
	// User ConfigMaps named by configMapInfo carry no label of ours: watch the
	// metadata of all ConfigMaps in a cache of its own (the manager's ConfigMap
	// cache is scoped to our label), and fetch data only when it changes.
	metaOpts := cache.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(), HTTPClient: mgr.GetHTTPClient(), DefaultTransform: slimMetadata}
	if cfg.Namespace != "" {
		metaOpts.DefaultNamespaces = map[string]cache.Config{cfg.Namespace: {}}
	}
	configMetadata, err := cache.New(mgr.GetConfig(), metaOpts)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := mgr.Add(configMetadata); err != nil {
		return nil, nil, nil, err
	}
	cmMeta := &metav1.PartialObjectMetadata{}
	cmMeta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	configs := reconcile.NewConfigSource(configMetadata, mgr.GetAPIReader())
	informer, err := configMetadata.GetInformer(context.Background(), cmMeta)
	if err != nil {
		return nil, nil, nil, err
	}
	// A deleted ConfigMap's content is worthless: drop it (deletes rarely carry a deletionTimestamp).
	if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if o, ok := obj.(client.Object); ok {
			configs.Forget(types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()})
		}
	}}); err != nil {
		return nil, nil, nil, err
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &srv1.StarRocksCluster{}, reconcile.ConfigMapIndex, cluster.ConfigMapsOf); err != nil {
		return nil, nil, nil, err
	}
	return configMetadata, configs, cmMeta, nil
}

// clusterController names the cluster controller and its queue.
const clusterController = "starrockscluster"

// workersShort makes the controllers' queues controller-runtime's priority
// queue, as by default, and returns whether the controller named
// controllerName has more reconciles wanting a worker, ready in its queue
// or running (running), than workers (starrocks.WorkersShort). Another
// controller built from the same options (the warehouses') gets a queue of
// its own and is not counted: it once was, whichever started last, and a
// first step then never saw clusters waiting.
func workersShort(opts *controller.Options, controllerName string, log logr.Logger, running func() int) func() bool {
	var queue atomic.Pointer[priorityqueue.PriorityQueue[ctrl.Request]]
	opts.NewQueue = func(name string, rateLimiter workqueue.TypedRateLimiter[ctrl.Request]) workqueue.TypedRateLimitingInterface[ctrl.Request] {
		q := priorityqueue.New(name, func(o *priorityqueue.Opts[ctrl.Request]) {
			o.Log = log.WithValues("controller", name)
			o.RateLimiter = rateLimiter
		})
		if name == controllerName {
			queue.Store(&q)
		}
		return q
	}
	return func() bool {
		q := queue.Load()
		return q == nil || starrocks.WorkersShort((*q).Len(), running(), opts.MaxConcurrentReconciles)
	}
}
