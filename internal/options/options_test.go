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

package options

import (
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/srscale/starrocks-operator/internal/resources"
)

func parse(t *testing.T, args ...string) (Options, error) {
	t.Helper()
	o := Default()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	_, err := o.Validate()
	return o, err
}

func TestKnobsLandInTheirFields(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		workers     int
		syncPeriod  time.Duration
		qps         float32
		burst       int
		namespace   string
		denyList    []string
		leaderElect bool
	}{
		{name: "defaults reproduce the upstream's hard-coded 1 worker, 2m, 20/30", workers: 1, syncPeriod: 2 * time.Minute, qps: 20, burst: 30},
		{name: "explicit zeros mean the classic 20/30", args: []string{"--kube-api-qps=0", "--kube-api-burst=0"}, workers: 1, syncPeriod: 2 * time.Minute, qps: 20, burst: 30},
		{name: "tuned values override every knob", args: []string{"--max-concurrent-reconciles=50", "--sync-period=30m", "--kube-api-qps=100", "--kube-api-burst=200"}, workers: 50, syncPeriod: 30 * time.Minute, qps: 100, burst: 200},
		{name: "QPS alone keeps the default burst", args: []string{"--kube-api-qps=25"}, workers: 1, syncPeriod: 2 * time.Minute, qps: 25, burst: 30},
		{name: "fractional QPS is kept", args: []string{"--kube-api-qps=2.5", "--kube-api-burst=5"}, workers: 1, syncPeriod: 2 * time.Minute, qps: 2.5, burst: 5},
		{name: "QPS -1 turns client-side limiting off", args: []string{"--kube-api-qps=-1"}, workers: 1, syncPeriod: 2 * time.Minute, qps: -1, burst: 0},
		{name: "namespace, deny list and leader election pass through", args: []string{"--namespace=team-a", "--deny-list=kube-system, b ,a", "--leader-elect"}, workers: 1, syncPeriod: 2 * time.Minute, qps: 20, burst: 30, namespace: "team-a", denyList: []string{"a", "b", "kube-system"}, leaderElect: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parse(t, tt.args...)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got := o.ControllerOptions().MaxConcurrentReconciles; got != tt.workers {
				t.Errorf("controller MaxConcurrentReconciles = %d, want %d", got, tt.workers)
			}
			mo := o.ManagerOptions(scheme.Scheme)
			if mo.Cache.SyncPeriod == nil || *mo.Cache.SyncPeriod != tt.syncPeriod {
				t.Errorf("manager Cache.SyncPeriod = %v, want %s", mo.Cache.SyncPeriod, tt.syncPeriod)
			}
			if mo.LeaderElection != tt.leaderElect {
				t.Errorf("LeaderElection = %v, want %v", mo.LeaderElection, tt.leaderElect)
			}
			if tt.namespace != "" {
				if _, ok := mo.Cache.DefaultNamespaces[tt.namespace]; !ok || len(mo.Cache.DefaultNamespaces) != 1 {
					t.Errorf("Cache.DefaultNamespaces = %v, want only %q", mo.Cache.DefaultNamespaces, tt.namespace)
				}
			} else if mo.Cache.DefaultNamespaces != nil {
				t.Errorf("Cache.DefaultNamespaces = %v, want all namespaces", mo.Cache.DefaultNamespaces)
			}
			if strings.Join(o.DenyList, ",") != strings.Join(tt.denyList, ",") {
				t.Errorf("DenyList = %q, want %q", o.DenyList, tt.denyList)
			}

			// What controller-runtime v0.25's GetConfig hands us when the kubeconfig says nothing.
			cfg := &rest.Config{Host: "https://127.0.0.1:6443", QPS: -1}
			o.ApplyToRESTConfig(cfg)
			if cfg.QPS != tt.qps || cfg.Burst != tt.burst {
				t.Errorf("rest.Config QPS/Burst = %v/%d, want %v/%d", cfg.QPS, cfg.Burst, tt.qps, tt.burst)
			}
			if cfg.RateLimiter != nil {
				t.Fatalf("rest.Config.RateLimiter = %v, want nil: each group-version builds its own from QPS and Burst", cfg.RateLimiter)
			}
		})
	}
}

// As in client-go and the upstream: each group-version's client has a bucket of the configured size.
func TestEachGroupVersionGetsTheConfiguredLimit(t *testing.T) {
	o, err := parse(t, "--kube-api-qps=50", "--kube-api-burst=60")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &rest.Config{Host: "https://127.0.0.1:6443"}
	o.ApplyToRESTConfig(cfg)
	var limiters []any
	for _, gv := range []schema.GroupVersion{{Version: "v1"}, {Group: "apps", Version: "v1"}, {Group: "starrocks.com", Version: "v1"}} {
		c := rest.CopyConfig(cfg)
		c.GroupVersion = &gv
		c.APIPath = "/apis"
		c.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
		rc, err := rest.RESTClientFor(c)
		if err != nil {
			t.Fatal(err)
		}
		if l := rc.GetRateLimiter(); l == nil || l.QPS() != 50 {
			t.Fatalf("%s client limiter %v, want QPS 50", gv, l)
		}
		limiters = append(limiters, rc.GetRateLimiter())
	}
	if limiters[0] == limiters[1] {
		t.Fatal("group-versions share one bucket; want one each, as the upstream had")
	}
}

func TestUnlimitedQPSBuildsClientsWithoutLimiter(t *testing.T) {
	o, err := parse(t, "--kube-api-qps=-1")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &rest.Config{Host: "https://127.0.0.1:6443", APIPath: "/api"}
	cfg.GroupVersion = &schema.GroupVersion{Version: "v1"}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	o.ApplyToRESTConfig(cfg)
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rc.GetRateLimiter() != nil {
		t.Fatalf("client has a rate limiter %v, want none", rc.GetRateLimiter())
	}
}

func TestUpstreamPodSettings(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  string
		want resources.Options
	}{
		{"defaults are the upstream's: hashed volume names, cluster.local", nil, "", resources.Options{DNSDomainSuffix: "cluster.local"}},
		{"--volume-name-with-hash=false names volumes plainly", []string{"--volume-name-with-hash=false"}, "", resources.Options{PlainVolumeNames: true, DNSDomainSuffix: "cluster.local"}},
		{"--dns-domain-suffix passes through", []string{"--dns-domain-suffix=corp.example"}, "", resources.Options{DNSDomainSuffix: "corp.example"}},
		{"KUBE_STARROCKS_UNSUPPORTED_ENVS is split on commas", nil, "HOST_IP, POD_IP,,", resources.Options{DNSDomainSuffix: "cluster.local", UnsupportedEnvs: []string{"HOST_IP", "POD_IP"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parse(t, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			o.ReadEnv(func(k string) string {
				if k == UnsupportedEnvsVar {
					return tt.env
				}
				return ""
			})
			if got := o.BuildOptions(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestInvalidFlagsAreRejectedNamingTheFlag(t *testing.T) {
	tests := []struct {
		name string
		args []string
		flag string
	}{
		{"zero workers", []string{"--max-concurrent-reconciles=0"}, "max-concurrent-reconciles"},
		{"negative workers", []string{"--max-concurrent-reconciles=-1"}, "max-concurrent-reconciles"},
		{"workers not a number", []string{"--max-concurrent-reconciles=five"}, "max-concurrent-reconciles"},
		{"zero sync period", []string{"--sync-period=0"}, "sync-period"},
		{"negative sync period", []string{"--sync-period=-5m"}, "sync-period"},
		{"sync period not a duration", []string{"--sync-period=soon"}, "sync-period"},
		{"sync period without unit", []string{"--sync-period=120"}, "sync-period"},
		{"QPS below -1", []string{"--kube-api-qps=-2"}, "kube-api-qps"},
		{"QPS between -1 and 0", []string{"--kube-api-qps=-0.5"}, "kube-api-qps"},
		{"QPS not a number", []string{"--kube-api-qps=NaN"}, "kube-api-qps"},
		{"QPS infinite", []string{"--kube-api-qps=+Inf"}, "kube-api-qps"},
		{"negative burst", []string{"--kube-api-burst=-1"}, "kube-api-burst"},
		{"burst not an integer", []string{"--kube-api-burst=1.5"}, "kube-api-burst"},
		{"empty DNS domain", []string{"--dns-domain-suffix="}, "dns-domain-suffix"},
		{"DNS domain with a slash", []string{"--dns-domain-suffix=cluster/local"}, "dns-domain-suffix"},
		{"DNS domain in upper case", []string{"--dns-domain-suffix=Cluster.Local"}, "dns-domain-suffix"},
		{"volume-name-with-hash not a bool", []string{"--volume-name-with-hash=maybe"}, "volume-name-with-hash"},
		{"unknown FE SSL mode", []string{"--fe-ssl-mode=ON"}, "fe-ssl-mode"},
		{"empty FE SSL mode", []string{"--fe-ssl-mode="}, "fe-ssl-mode"},
		{"VERIFY_CA without a CA bundle", []string{"--fe-ssl-mode=VERIFY_CA"}, "fe-ca-file"},
		{"VERIFY_IDENTITY without a CA bundle", []string{"--fe-ssl-mode=verify_identity"}, "fe-ca-file"},
		{"CA bundle that does not exist", []string{"--fe-ssl-mode=VERIFY_CA", "--fe-ca-file=/nonexistent/ca.pem"}, "fe-ca-file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.args...)
			if err == nil {
				t.Fatalf("%v accepted, want an error", tt.args)
			}
			if !strings.Contains(err.Error(), tt.flag) {
				t.Fatalf("error %q does not name --%s", err, tt.flag)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"burst below QPS", []string{"--kube-api-qps=100", "--kube-api-burst=50"}, "--kube-api-burst=50 is below --kube-api-qps=100"},
		{"default burst below a raised QPS", []string{"--kube-api-qps=100"}, "--kube-api-burst=30 is below"},
		{"burst with unlimited QPS", []string{"--kube-api-qps=-1", "--kube-api-burst=50"}, "no effect"},
		{"no warning for defaults", nil, ""},
		{"no warning for burst above QPS", []string{"--kube-api-qps=100", "--kube-api-burst=200"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Default()
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			o.BindFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			warnings, err := o.Validate()
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(warnings, "\n")
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Fatalf("warnings = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLogStatesEffectiveKnobs(t *testing.T) {
	var lines []string
	log := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{})
	o, err := parse(t, "--kube-api-qps=-1", "--sync-period=30m", "--max-concurrent-reconciles=8")
	if err != nil {
		t.Fatal(err)
	}
	o.Log(log)
	if len(lines) != 1 {
		t.Fatalf("logged %d lines, want 1: %q", len(lines), lines)
	}
	for _, want := range []string{`"maxConcurrentReconciles"=8`, `"syncPeriod"="30m0s"`, `"kubeAPIQPS"="unlimited"`} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("log line %s lacks %s", lines[0], want)
		}
	}
}

// Throttling is visible: every wait for the limiter lands in client-go's
// rate limiter histogram, served on /metrics.
func TestThrottledRequestsAreObserved(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`))
	}))
	defer srv.Close()
	o, err := parse(t, "--kube-api-qps=5", "--kube-api-burst=1")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &rest.Config{Host: srv.URL, APIPath: "/api"}
	cfg.GroupVersion = &schema.GroupVersion{Version: "v1"}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	o.ApplyToRESTConfig(cfg)
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	waited := func() (count uint64, slow uint64) {
		families, err := crmetrics.Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			if f.GetName() != "rest_client_rate_limiter_duration_seconds" {
				continue
			}
			for _, m := range f.GetMetric() {
				h := m.GetHistogram()
				count += h.GetSampleCount()
				for _, b := range h.GetBucket() {
					if b.GetUpperBound() == 0.005 {
						slow += h.GetSampleCount() - b.GetCumulativeCount()
					}
				}
			}
		}
		return count, slow
	}
	count0, slow0 := waited()
	for range 3 {
		if err := rc.Get().AbsPath("/api/v1/namespaces").Do(context.Background()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	count1, slow1 := waited()
	// A burst of 1 lets the first request through; the other two waited about 200 ms each.
	if count1-count0 != 3 || slow1-slow0 != 2 {
		t.Fatalf("observed %d waits, %d of them 5 ms or longer; want 3 and 2", count1-count0, slow1-slow0)
	}
}

func TestLeaderElectionLeaseNamespaceIsItsOwnFlag(t *testing.T) {
	o, err := parse(t, "--leader-elect", "--namespace=team-a", "--leader-election-namespace=starrocks-system")
	if err != nil {
		t.Fatal(err)
	}
	mo := o.ManagerOptions(scheme.Scheme)
	if !mo.LeaderElectionReleaseOnCancel {
		t.Error("a stopping leader keeps its Lease until it expires; want it released on shutdown")
	}
	if !mo.LeaderElection || mo.LeaderElectionNamespace != "starrocks-system" {
		t.Fatalf("LeaderElection %v in %q, want true in starrocks-system (not the watched namespace)", mo.LeaderElection, mo.LeaderElectionNamespace)
	}
}

// The upstream chart passes these two flags; the operator exits on unknown
// flags, so they must parse, and a malformed domain is rejected naming the flag.
func TestUpstreamChartFlagsAreAccepted(t *testing.T) {
	o, err := parse(t, "--volume-name-with-hash=false", "--dns-domain-suffix=corp.local")
	if err != nil {
		t.Fatalf("upstream flags rejected: %v", err)
	}
	if o.VolumeNameWithHash || o.DNSDomainSuffix != "corp.local" {
		t.Errorf("VolumeNameWithHash=%v DNSDomainSuffix=%q, want false and corp.local", o.VolumeNameWithHash, o.DNSDomainSuffix)
	}
	if d := Default(); !d.VolumeNameWithHash || d.DNSDomainSuffix != "cluster.local" {
		t.Errorf("defaults: VolumeNameWithHash=%v DNSDomainSuffix=%q, want true and cluster.local", d.VolumeNameWithHash, d.DNSDomainSuffix)
	}
	_, err = parse(t, "--dns-domain-suffix=Not_A_Domain")
	if err == nil || !strings.Contains(err.Error(), "--dns-domain-suffix") {
		t.Errorf("malformed domain: err = %v, want one naming --dns-domain-suffix", err)
	}
}

// --fe-credentials-secret takes <namespace>/<name> or <name>; anything else
// is refused naming the flag.
func TestFECredentialsSecret(t *testing.T) {
	tests := []struct {
		name, arg     string
		wantNamespace string
		wantName      string
		wantErr       string
	}{
		{"unset logs in as root", "", "", "", ""},
		{"namespace and name", "starrocks/operator-user", "starrocks", "operator-user", ""},
		{"bare name is each cluster's namespace", "operator-user", "", "operator-user", ""},
		{"three parts", "a/b/c", "", "", "--fe-credentials-secret must be <namespace>/<name> or <name>"},
		{"bad name", "ns/Bad_Name", "", "", "--fe-credentials-secret must be <namespace>/<name> or <name>, got \"ns/Bad_Name\": name"},
		{"bad namespace", "Not.A.Label/x", "", "", "namespace"},
		{"empty name", "ns/", "", "", "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parse(t, "--fe-credentials-secret="+tt.arg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ref, err := o.FECredentials()
			if err != nil || ref.Namespace != tt.wantNamespace || ref.Name != tt.wantName {
				t.Fatalf("FECredentials() = %v, %v; want %s/%s", ref, err, tt.wantNamespace, tt.wantName)
			}
		})
	}
}
