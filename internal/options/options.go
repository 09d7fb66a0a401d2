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

// Package options owns the operator's command-line knobs: it parses them,
// validates them and applies them to the REST config, the manager and the
// controller. Nothing else in the operator reads a flag.
package options

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/writeorder"
)

// The classic client-go limits that the upstream operator ran with, and that
// "0" stands for on the command line.
const (
	DefaultQPS   float32 = 20
	DefaultBurst int     = 30
	// QPSUnlimited turns client-side rate limiting off and leaves flow control to
	// the API server's Priority and Fairness.
	QPSUnlimited float32 = -1
)

// Options are the operator's knobs. The zero value is not useful: start from Default.
type Options struct {
	// MaxConcurrentReconciles is the number of StarRocksCluster reconcile workers.
	MaxConcurrentReconciles int
	// SyncPeriod is how often the manager's caches re-deliver every object.
	SyncPeriod time.Duration
	// KubeAPIQPS is the flag as given: 0 means DefaultQPS, -1 means no client-side limit.
	KubeAPIQPS float64
	// KubeAPIBurst is the flag as given: 0 means DefaultBurst.
	KubeAPIBurst int

	MetricsBindAddress string
	// MetricsSecure serves /metrics over HTTPS to clients whose bearer token
	// the API server authenticates (TokenReview) and authorises
	// (SubjectAccessReview: get on the non-resource URL /metrics).
	MetricsSecure bool
	// MetricsCertDir holds tls.crt and tls.key for the secure endpoint; empty
	// uses a self-signed certificate made at start-up.
	MetricsCertDir         string
	HealthProbeBindAddress string
	// PprofBindAddress serves Go's /debug/pprof; empty (the default) turns it off.
	PprofBindAddress string
	LeaderElect      bool
	LeaderElectionID string
	// LeaderElectionNamespace holds the Lease; empty means the namespace of the
	// operator's own Pod (read from its service account), as controller-runtime does.
	LeaderElectionNamespace string
	// Namespace restricts the operator to one namespace; empty watches all.
	Namespace string
	// DenyList holds namespaces whose clusters the operator leaves alone.
	DenyList []string

	// VolumeNameWithHash names the volumes of configMaps[] and secrets[]
	// <name>-<hash>, as the upstream does by default.
	VolumeNameWithHash bool
	// DNSDomainSuffix is the cluster's DNS domain, for addresses such as the
	// FE proxy's upstream (<svc>.<namespace>.svc.<suffix>).
	DNSDomainSuffix string
	// FESSLMode is --fe-ssl-mode as given (see FETLS); FECAFile the CA
	// bundle of the verifying modes.
	FESSLMode string
	FECAFile  string
	// FECredentialsSecret is the Secret holding the user (key "username")
	// and password (key "password") the operator logs in to FE with:
	// "<namespace>/<name>", or "<name>" for a Secret of that name in each
	// cluster's namespace. Empty logs in as root with MYSQL_PWD, as the
	// upstream does.
	FECredentialsSecret string
	// EnableBackup starts the backup controllers (StarRocksBackupRepository,
	// StarRocksBackup, StarRocksBackupSchedule, StarRocksRestore and the
	// clusters' clusterSnapshot setting). Off by default: backup needs the
	// operator's FE user to hold REPOSITORY and EXPORT, which let it copy
	// every table anywhere (docs/security.md).
	EnableBackup bool
	// UnsupportedEnvs are container variables the operator must not add
	// (KUBE_STARROCKS_UNSUPPORTED_ENVS, comma-separated, read from the
	// environment as the upstream does).
	UnsupportedEnvs []string
}

// UnsupportedEnvsVar is the environment variable the upstream reads
// UnsupportedEnvs from.
const UnsupportedEnvsVar = "KUBE_STARROCKS_UNSUPPORTED_ENVS"

// Default returns the options that reproduce the upstream operator's hard-coded behaviour.
func Default() Options {
	return Options{
		MaxConcurrentReconciles: 1,
		SyncPeriod:              2 * time.Minute,
		MetricsBindAddress:      ":8443",
		MetricsSecure:           true,
		HealthProbeBindAddress:  ":8081",
		// The upstream operator's Lease: during a switch from it, the two never
		// reconcile at the same time.
		LeaderElectionID:   "c6c79638.starrocks.com",
		VolumeNameWithHash: true,
		DNSDomainSuffix:    "cluster.local",
		FESSLMode:          string(fe.DefaultSSLMode),
	}
}

// ReadEnv takes the settings the upstream reads from the environment.
func (o *Options) ReadEnv(getenv func(string) string) {
	o.UnsupportedEnvs = splitList(getenv(UnsupportedEnvsVar))
}

// BuildOptions are the builders' options for these settings.
func (o Options) BuildOptions() resources.Options {
	return resources.Options{
		PlainVolumeNames: !o.VolumeNameWithHash,
		DNSDomainSuffix:  o.DNSDomainSuffix,
		UnsupportedEnvs:  o.UnsupportedEnvs,
	}
}

// BindFlags registers every knob on fs, with o's values as defaults.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.IntVar(&o.MaxConcurrentReconciles, "max-concurrent-reconciles", o.MaxConcurrentReconciles,
		"Number of StarRocksCluster reconcile workers (at least 1).")
	fs.DurationVar(&o.SyncPeriod, "sync-period", o.SyncPeriod,
		"How often every watched object is re-delivered and every cluster reconciled again (a Go duration, e.g. 2m, 30m).")
	fs.Float64Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS,
		"Sustained requests per second to each Kubernetes API group (core, apps, starrocks.com, ...); 0 means 20, -1 turns client-side limiting off.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst,
		"Requests the operator may send at once above --kube-api-qps; 0 means 30.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress,
		"Address of the Prometheus /metrics endpoint; 0 disables it.")
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", o.MetricsSecure,
		"Serve /metrics over HTTPS, only to callers whose bearer token may get the non-resource URL /metrics (checked with TokenReview and SubjectAccessReview); false serves plain HTTP to anyone.")
	fs.StringVar(&o.MetricsCertDir, "metrics-cert-dir", o.MetricsCertDir,
		"Directory with tls.crt and tls.key for the secure /metrics endpoint (default: a self-signed certificate).")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress,
		"Address of the /healthz and /readyz endpoints; 0 disables them.")
	fs.StringVar(&o.PprofBindAddress, "pprof-bind-address", o.PprofBindAddress,
		"Address of Go's /debug/pprof endpoints, for profiling (default: off).")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect,
		"Elect a leader so that only one of several operator replicas reconciles.")
	fs.StringVar(&o.LeaderElectionID, "leader-election-id", o.LeaderElectionID,
		"Name of the Lease used for leader election.")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", o.LeaderElectionNamespace,
		"Namespace of the leader election Lease (default: the operator Pod's namespace; required when running outside a Pod with --leader-elect).")
	fs.StringVar(&o.Namespace, "namespace", o.Namespace,
		"Only reconcile clusters in this namespace (default: all namespaces).")
	fs.BoolVar(&o.VolumeNameWithHash, "volume-name-with-hash", o.VolumeNameWithHash,
		"Name the volumes of configMaps[] and secrets[] <name>-<hash>, as the upstream operator does; false names them after the ConfigMap or Secret.")
	fs.StringVar(&o.DNSDomainSuffix, "dns-domain-suffix", o.DNSDomainSuffix,
		"The cluster's DNS domain (Services resolve as <name>.<namespace>.svc.<suffix>).")
	o.bindFETLSFlags(fs)
	fs.StringVar(&o.FECredentialsSecret, "fe-credentials-secret", o.FECredentialsSecret,
		"Secret whose keys username and password the operator logs in to FE with: <namespace>/<name>, or <name> for that Secret in each cluster's namespace (default: root with MYSQL_PWD). A cluster's annotation "+
			"starrocks.com/fe-credentials-secret overrides it.")
	fs.BoolVar(&o.EnableBackup, "enable-backup", o.EnableBackup,
		"Run the backup controllers (StarRocksBackupRepository, StarRocksBackup, StarRocksBackupSchedule, StarRocksRestore, spec.clusterSnapshot). "+
			"Off by default: the operator's FE user then needs REPOSITORY and EXPORT, which let it copy every table anywhere (docs/security.md).")
	fs.Func("deny-list", "Comma-separated namespaces whose clusters are never reconciled.", func(s string) error {
		o.DenyList = splitList(s)
		return nil
	})
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Validate rejects values the operator cannot run with; each error names its flag.
// Warnings are for values that work but are probably not what was meant.
func (o Options) Validate() (warnings []string, err error) {
	var errs []error
	if o.MaxConcurrentReconciles < 1 {
		errs = append(errs, fmt.Errorf("--max-concurrent-reconciles must be at least 1, got %d", o.MaxConcurrentReconciles))
	}
	if o.SyncPeriod <= 0 {
		errs = append(errs, fmt.Errorf("--sync-period must be a positive duration such as 2m or 30m, got %s", o.SyncPeriod))
	}
	switch {
	case math.IsNaN(o.KubeAPIQPS) || math.IsInf(o.KubeAPIQPS, 0):
		errs = append(errs, fmt.Errorf("--kube-api-qps must be a finite number, got %v", o.KubeAPIQPS))
	case o.KubeAPIQPS < 0 && o.KubeAPIQPS != float64(QPSUnlimited):
		errs = append(errs, fmt.Errorf("--kube-api-qps must be 0 (default 20), a positive number, or -1 (no client-side limit), got %v", o.KubeAPIQPS))
	case o.KubeAPIQPS > math.MaxFloat32:
		errs = append(errs, fmt.Errorf("--kube-api-qps is too large: %v", o.KubeAPIQPS))
	}
	if o.KubeAPIBurst < 0 {
		errs = append(errs, fmt.Errorf("--kube-api-burst must be 0 (default 30) or a positive number, got %d", o.KubeAPIBurst))
	}
	if msgs := validation.IsDNS1123Subdomain(o.DNSDomainSuffix); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("--dns-domain-suffix must be a DNS domain such as cluster.local, got %q: %s", o.DNSDomainSuffix, strings.Join(msgs, "; ")))
	}
	if _, err := o.FECredentials(); err != nil {
		errs = append(errs, err)
	}
	if o.LeaderElect && o.LeaderElectionID == "" {
		errs = append(errs, errors.New("--leader-election-id must not be empty when --leader-elect is set"))
	}
	feTLS, err := o.FETLS()
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	warnings = append(warnings, o.feTLSWarnings(feTLS)...)
	qps, burst := o.EffectiveRateLimit()
	if qps == QPSUnlimited && o.KubeAPIBurst != 0 {
		warnings = append(warnings, fmt.Sprintf("--kube-api-burst=%d has no effect with --kube-api-qps=-1", o.KubeAPIBurst))
	}
	if qps > 0 && float32(burst) < qps {
		warnings = append(warnings, fmt.Sprintf("--kube-api-burst=%d is below --kube-api-qps=%v: bursts of requests will wait although the sustained rate allows more", burst, qps))
	}
	return warnings, nil
}

// FECredentials is --fe-credentials-secret as a reference: an empty Name
// for root, an empty Namespace for each cluster's own.
func (o Options) FECredentials() (types.NamespacedName, error) {
	if o.FECredentialsSecret == "" {
		return types.NamespacedName{}, nil
	}
	var ref types.NamespacedName
	parts := strings.Split(o.FECredentialsSecret, "/")
	switch len(parts) {
	case 1:
		ref.Name = parts[0]
	case 2:
		ref.Namespace, ref.Name = parts[0], parts[1]
		if msgs := validation.IsDNS1123Label(ref.Namespace); len(msgs) > 0 {
			return ref, fmt.Errorf("--fe-credentials-secret must be <namespace>/<name> or <name>, got %q: namespace %s", o.FECredentialsSecret, strings.Join(msgs, "; "))
		}
	default:
		return ref, fmt.Errorf("--fe-credentials-secret must be <namespace>/<name> or <name>, got %q", o.FECredentialsSecret)
	}
	if msgs := validation.IsDNS1123Subdomain(ref.Name); len(msgs) > 0 {
		return ref, fmt.Errorf("--fe-credentials-secret must be <namespace>/<name> or <name>, got %q: name %s", o.FECredentialsSecret, strings.Join(msgs, "; "))
	}
	return ref, nil
}

// EffectiveRateLimit resolves the flags' 0 defaults: it returns the QPS and burst
// the operator runs with, QPS -1 meaning no client-side limit.
func (o Options) EffectiveRateLimit() (qps float32, burst int) {
	qps, burst = float32(o.KubeAPIQPS), o.KubeAPIBurst
	if qps == 0 {
		qps = DefaultQPS
	}
	if burst == 0 {
		burst = DefaultBurst
	}
	if qps < 0 {
		return QPSUnlimited, 0
	}
	return qps, burst
}

// ApplyToRESTConfig sets the client-side rate limit on cfg. As in client-go
// and the upstream operator, each API group-version's client gets its own
// token bucket of this size: --kube-api-qps=20 lets the operator send up to 20
// requests per second to each of core, apps, starrocks.com, events.k8s.io and
// autoscaling. Sharing one bucket would make the default three times slower
// than the upstream's under a burst of new clusters.
//
// It also orders the operator's writes so that StatefulSets go ahead of the
// rest when many clusters are reconciled at once (package writeorder).
func (o Options) ApplyToRESTConfig(cfg *rest.Config) {
	qps, burst := o.EffectiveRateLimit()
	cfg.QPS, cfg.Burst = qps, burst
	cfg.RateLimiter = nil
	order := writeorder.New()
	order.Waited = func(d time.Duration) { metrics.WriteOrderWait.Observe(d.Seconds()) }
	cfg.Wrap(order.Wrap)
}

// ManagerOptions returns the manager's options for these knobs.
func (o Options) ManagerOptions(scheme *runtime.Scheme) ctrl.Options {
	syncPeriod := o.SyncPeriod
	mo := ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 o.metricsServerOptions(),
		HealthProbeBindAddress:  o.HealthProbeBindAddress,
		PprofBindAddress:        o.PprofBindAddress,
		LeaderElection:          o.LeaderElect,
		LeaderElectionID:        o.LeaderElectionID,
		LeaderElectionNamespace: o.LeaderElectionNamespace,
		// A stopping leader gives up its Lease at once: a new replica (a
		// rolling update) takes over in seconds, not after the lease expires.
		LeaderElectionReleaseOnCancel: true,
		Cache:                         cache.Options{SyncPeriod: &syncPeriod},
	}
	if o.Namespace != "" {
		mo.Cache.DefaultNamespaces = map[string]cache.Config{o.Namespace: {}}
	}
	return mo
}

// metricsServerOptions serves /metrics as controller-runtime's secure
// metrics server does: HTTPS, and the authentication and authorisation
// filter, which asks the API server about each caller's bearer token.
func (o Options) metricsServerOptions() metricsserver.Options {
	m := metricsserver.Options{BindAddress: o.MetricsBindAddress}
	if o.MetricsSecure {
		m.SecureServing = true
		// HTTP/1.1 only, as kubebuilder's scaffold: HTTP/2's rapid reset
		// (CVE-2023-44487) and stream floods cost the server more than a
		// scrape gains from it.
		m.TLSOpts = []func(*tls.Config){disableHTTP2}
		m.FilterProvider = filters.WithAuthenticationAndAuthorization
		m.CertDir = o.MetricsCertDir
	}
	return m
}

// disableHTTP2 offers only HTTP/1.1 in the TLS handshake.
func disableHTTP2(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }

// ControllerOptions returns the StarRocksCluster controller's options for these knobs.
func (o Options) ControllerOptions() controller.Options {
	return controller.Options{MaxConcurrentReconciles: o.MaxConcurrentReconciles}
}

// Log writes the effective knobs once, at start-up, so that an operator's
// behaviour can be explained from its first log lines.
func (o Options) Log(log logr.Logger) {
	qps, burst := o.EffectiveRateLimit()
	qpsText := fmt.Sprint(qps)
	if qps == QPSUnlimited {
		qpsText = "unlimited"
	}
	log.Info("effective settings",
		"maxConcurrentReconciles", o.MaxConcurrentReconciles,
		"syncPeriod", o.SyncPeriod.String(),
		"kubeAPIQPS", qpsText,
		"kubeAPIBurst", burst,
		"namespace", o.Namespace,
		"denyList", o.DenyList,
		"volumeNameWithHash", o.VolumeNameWithHash,
		"dnsDomainSuffix", o.DNSDomainSuffix,
		"feSSLMode", o.FESSLMode,
		"feCAFile", o.FECAFile,
		"unsupportedEnvs", o.UnsupportedEnvs,
		"feCredentialsSecret", o.FECredentialsSecret,
		"enableBackup", o.EnableBackup,
		"leaderElect", o.LeaderElect,
		"metricsBindAddress", o.MetricsBindAddress,
		"metricsSecure", o.MetricsSecure,
		"healthProbeBindAddress", o.HealthProbeBindAddress,
		"pprofBindAddress", o.PprofBindAddress,
	)
}
