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

package integration_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// The binary, as users run it: against a real API server it logs its knobs once,
// serves its probes, serves its metrics over HTTPS only to callers allowed to
// get /metrics, and stops cleanly on SIGTERM.
func TestBinaryServesProbesAndStopsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts a control plane")
	}
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cluster := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: []string{filepath.Join(root, "config", "crd", "bases")}})
	kubeconfig, err := cluster.WriteKubeconfig("starrocks-operator", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := testcluster.BuildOperator(context.Background(), root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	metricsAddr, probeAddr := testutil.FreeAddrT(t), testutil.FreeAddrT(t)
	cmd := exec.Command(bin, "--kubeconfig="+kubeconfig,
		"--metrics-bind-address="+metricsAddr, "--health-probe-bind-address="+probeAddr,
		"--max-concurrent-reconciles=7", "--sync-period=30m", "--kube-api-qps=100", "--kube-api-burst=200")
	var logs testutil.SyncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("operator output:\n%s", logs.String())
		}
	})

	for _, url := range []string{"http://" + probeAddr + "/healthz", "http://" + probeAddr + "/readyz"} {
		body, _ := waitFor200(t, http.DefaultClient, url, "", exited, nil)
		if strings.TrimSpace(body) != "ok" {
			t.Errorf("%s answered %q, want ok", url, body)
		}
	}
	// The controller's metrics appear once its caches have synced and workers started.
	wantMetrics := []string{
		`controller_runtime_max_concurrent_reconciles{controller="starrockscluster"} 7`,
		"controller_runtime_reconcile_total",
		"rest_client_rate_limiter_duration_seconds_bucket",
		"starrocks_operator_api_requests_total",
	}
	// Secure metrics: a Prometheus ServiceAccount bound to a metrics-reader
	// ClusterRole may scrape; a token without the binding, or none, may not.
	reader, stranger := metricsTokens(t, cluster)
	https := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // a self-signed certificate
	metricsURL := "https://" + metricsAddr + "/metrics"
	missing := func(metrics []byte) []string {
		return slices.DeleteFunc(slices.Clone(wantMetrics), func(m string) bool { return bytes.Contains(metrics, []byte(m)) })
	}
	if metrics, ok := waitFor200(t, https, metricsURL, reader, exited, func(b []byte) bool { return len(missing(b)) == 0 }); !ok {
		t.Fatalf("/metrics lacks %q after 60s\noperator output:\n%s", missing([]byte(metrics)), logs.String())
	}

	for _, c := range []struct {
		who, token string
		want       int
	}{{"no token", "", http.StatusUnauthorized}, {"a token not allowed to get /metrics", stranger, http.StatusForbidden}} {
		if code := statusOf(t, https, metricsURL, c.token); code != c.want {
			t.Errorf("/metrics with %s answered %d, want %d", c.who, code, c.want)
		}
	}
	if code := statusOf(t, http.DefaultClient, "http://"+metricsAddr+"/metrics", ""); code != http.StatusBadRequest {
		t.Errorf("/metrics over plain HTTP answered %d, want 400 (the port speaks TLS only)", code)
	}

	effective := 0
	scanner := bufio.NewScanner(strings.NewReader(logs.String()))
	for scanner.Scan() {
		line := scanner.Text()
		if !strings.Contains(line, "effective settings") {
			continue
		}
		effective++
		for _, want := range []string{`"maxConcurrentReconciles":7`, `"syncPeriod":"30m0s"`, `"kubeAPIQPS":"100"`, `"kubeAPIBurst":200`} {
			if !strings.Contains(line, want) {
				t.Errorf("effective settings line lacks %s: %s", want, line)
			}
		}
	}
	if effective != 1 {
		t.Errorf("effective settings logged %d times, want once", effective)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("operator exited with %v after SIGTERM, want exit code 0", err)
		}
	case <-time.After(45 * time.Second):
		t.Fatal("operator did not stop within 45s of SIGTERM")
	}
}

// metricsTokens returns a token of a ServiceAccount bound to a ClusterRole
// that may get /metrics, as the chart's metrics-reader, and one of a
// ServiceAccount without it.
func metricsTokens(t *testing.T, c *testcluster.Cluster) (reader, stranger string) {
	t.Helper()
	ctx := context.Background()
	const ns = "monitoring"
	testutil.CreateNamespace(t, c.Client, ns)
	objs := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "prometheus"}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "stranger"}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader"},
			Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "prometheus-metrics-reader"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "metrics-reader"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "prometheus"}}},
	}
	for _, o := range objs {
		if err := c.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	token := func(sa string) string {
		req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
		owner := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa}}
		if err := c.Client.SubResource("token").Create(ctx, owner, req); err != nil {
			t.Fatalf("token of %s: %v", sa, err)
		}
		return req.Status.Token
	}
	return token("prometheus"), token("stranger")
}

func statusOf(t *testing.T, hc *http.Client, url, token string) int {
	t.Helper()
	resp, err := testutil.BearerGet(context.Background(), hc, url, token)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// waitFor200 GETs url for up to 60 s until it answers 200 OK with a body
// that until accepts (any body, when until is nil), and returns that body. It
// fails t when the operator exits first or url never answers 200; when url
// answers 200 but never with a body until accepts, it returns the last one and
// false.
func waitFor200(t *testing.T, hc *http.Client, url, token string, exited <-chan error, until func(body []byte) bool) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	body, err := testutil.WaitHTTP(ctx, url, testutil.HTTPWait{Client: hc, Token: token, Until: until, Abort: func() error {
		select {
		case err := <-exited:
			if err == nil {
				return errors.New("operator exited early, with exit code 0")
			}
			return fmt.Errorf("operator exited early: %w", err)
		default:
			return nil
		}
	}})
	switch {
	case err == nil:
		return string(body), true
	case !errors.Is(err, context.DeadlineExceeded):
		t.Fatal(err)
	case body == nil:
		t.Fatalf("%s never answered 200: %v", url, err)
	}
	return string(body), false
}
