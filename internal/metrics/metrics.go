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

// Package metrics holds the operator's own Prometheus metrics, served with
// controller-runtime's on /metrics.
package metrics

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	// APIRequests counts every request the operator sends, by Kubernetes verb and resource.
	APIRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "starrocks_operator_api_requests_total",
		Help: "Requests sent to the Kubernetes API by verb (get, list, watch, create, update, patch, delete) and resource (with subresource).",
	}, []string{"verb", "resource"})
	// ReconcileOutcomes counts reconciles by result.
	ReconcileOutcomes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "starrocks_operator_reconciles_total",
		Help: "StarRocksCluster reconciles by outcome: unchanged (no write), changed (wrote objects or status), error.",
	}, []string{"outcome"})
	// ObjectWrites counts object writes by kind and action.
	ObjectWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "starrocks_operator_object_writes_total",
		Help: "Objects the operator wrote, by kind and action: created, updated (the spec changed), restored (someone else changed it; drift corrected) or deleted.",
	}, []string{"kind", "action"})
	// WriteOrderWait observes how long writes waited for other clusters'
	// StatefulSet writes in flight (see package writeorder).
	WriteOrderWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "starrocks_operator_write_order_wait_seconds",
		Help:    "How long a write that no cluster's readiness waits for (a Service, a status) waited for other clusters' StatefulSet writes in flight; writes that did not wait are not observed.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 12),
	})
	// ClusterReady is 1 for each cluster whose Ready condition is true and 0
	// for the others; a deleted or ignored cluster has no series.
	ClusterReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "starrocks_operator_cluster_ready",
		Help: "Whether the StarRocksCluster's Ready condition is true (1) or not (0), as of the operator's last reconcile of it.",
	}, []string{"namespace", "name"})
	// DecommissionTablets is, per cluster in a BE scale-in, the tablets FE
	// still counts on the BEs it decommissions; a cluster with none has no series.
	DecommissionTablets = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "starrocks_operator_decommission_tablets",
		Help: "Tablets FE still counts on the BEs a scale-in decommissions (TabletNum of SHOW BACKENDS), as of the operator's last read of FE.",
	}, []string{"namespace", "name"})
	// TimeToReady observes, once per cluster, the time from creation until every component ran.
	TimeToReady = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "starrocks_operator_cluster_time_to_ready_seconds",
		Help:    "Time from a StarRocksCluster's creation until it first reached phase running.",
		Buckets: prometheus.ExponentialBuckets(0.25, 2, 14),
	})
)

// The backup controllers' metrics (docs/backup.md): what an alert needs to
// see a database whose backups stopped or keep failing, per cluster and
// database.
var (
	// BackupLastSuccess is when a database's newest backup that succeeded completed.
	BackupLastSuccess = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "starrocks_operator_backup_last_success_timestamp_seconds",
		Help: "When the newest backup of a database that succeeded completed (Unix seconds).",
	}, []string{"namespace", "cluster", "database"})
	// BackupConsecutiveFailures counts a database's backups that failed since its last success.
	BackupConsecutiveFailures = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "starrocks_operator_backup_consecutive_failures",
		Help: "Backups of a database that failed in a row, since its last one that succeeded.",
	}, []string{"namespace", "cluster", "database"})
	// BackupsEnded counts backups and restores that ended, by kind and result.
	BackupsEnded = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "starrocks_operator_backups_total",
		Help: "Backups and restores that ended, by kind (backup, restore) and result (succeeded, failed, cancelled).",
	}, []string{"kind", "result"})
	// BackupDuration observes how long a backup or a restore ran, from its statement to its end.
	BackupDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "starrocks_operator_backup_duration_seconds",
		Help:    "Time from a backup's or restore's statement until it ended.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 18),
	}, []string{"kind"})
	// BackupQueueDepth is how many backups and restores wait for their turn.
	BackupQueueDepth = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "starrocks_operator_backup_queue_depth",
		Help: "Backups and restores in phase Pending, by kind.",
	}, []string{"kind"})
	// ClusterSnapshotLastSuccess is when a shared-data cluster's newest automated snapshot finished.
	ClusterSnapshotLastSuccess = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "starrocks_operator_cluster_snapshot_last_success_timestamp_seconds",
		Help: "When the newest automated cluster snapshot of a shared-data cluster was made, as FE reported it (Unix seconds).",
	}, []string{"namespace", "cluster"})
)

func init() {
	crmetrics.Registry.MustRegister(APIRequests, ReconcileOutcomes, ObjectWrites, WriteOrderWait, ClusterReady, TimeToReady, DecommissionTablets,
		BackupLastSuccess, BackupConsecutiveFailures, BackupsEnded, BackupDuration, BackupQueueDepth, ClusterSnapshotLastSuccess)
	// The series of fixed labels exist from the start, at zero: a rate or a
	// sum over them is 0, not empty, before the first backup.
	for _, kind := range []string{"backup", "restore"} {
		BackupQueueDepth.WithLabelValues(kind)
		BackupDuration.WithLabelValues(kind)
		for _, result := range []string{"succeeded", "failed", "cancelled"} {
			BackupsEnded.WithLabelValues(kind, result)
		}
	}
}

// InstrumentConfig makes every client built from cfg count its requests in APIRequests.
func InstrumentConfig(cfg *rest.Config) {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt} })
}

type countingTransport struct{ next http.RoundTripper }

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	verb, resource := Classify(req.Method, req.URL.Path, req.URL.Query().Get("watch") == "true")
	APIRequests.WithLabelValues(verb, resource).Inc()
	return t.next.RoundTrip(req)
}

// Classify maps an HTTP request on the Kubernetes API to its verb and resource
// ("statefulsets", "starrocksclusters/status"), as the audit log names them.
func Classify(method, path string, watch bool) (verb, resource string) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	// /api/v1/... or /apis/group/version/...
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return strings.ToLower(method), "nonresource"
	}
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) != 2 {
		parts = parts[2:]
	}
	named := len(parts) >= 2
	switch len(parts) {
	case 0:
		resource = "discovery"
	case 1, 2:
		resource = parts[0]
	default:
		resource = parts[0] + "/" + parts[2]
	}
	switch method {
	case http.MethodGet:
		switch {
		case watch:
			verb = "watch"
		case named:
			verb = "get"
		default:
			verb = "list"
		}
	case http.MethodPost:
		verb = "create"
	case http.MethodPut:
		verb = "update"
	case http.MethodPatch:
		verb = "patch"
	case http.MethodDelete:
		verb = "delete"
		if !named {
			verb = "deletecollection"
		}
	default:
		verb = strings.ToLower(method)
	}
	return verb, resource
}
