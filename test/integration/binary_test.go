package integration_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/test/testcluster"
)

// The binary, as users run it: against a real API server it logs its knobs once,
// serves its probes and metrics, and stops cleanly on SIGTERM.
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
	metricsAddr, probeAddr := freeAddr(t), freeAddr(t)
	cmd := exec.Command(bin, "--kubeconfig="+kubeconfig,
		"--metrics-bind-address="+metricsAddr, "--health-probe-bind-address="+probeAddr,
		"--max-concurrent-reconciles=7", "--sync-period=30m", "--kube-api-qps=100", "--kube-api-burst=200")
	var logs syncBuffer
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
		body := waitFor200(t, url, exited)
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
	var metrics string
	deadline := time.Now().Add(60 * time.Second)
	for {
		metrics = waitFor200(t, "http://"+metricsAddr+"/metrics", exited)
		missing := slices.DeleteFunc(slices.Clone(wantMetrics), func(m string) bool { return strings.Contains(metrics, m) })
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics lacks %q after 60s\noperator output:\n%s", missing, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
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

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitFor200(t *testing.T, url string, exited <-chan error) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var last string
	for ctx.Err() == nil {
		select {
		case err := <-exited:
			t.Fatalf("operator exited early: %v", err)
		default:
		}
		resp, err := http.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return string(body)
			}
			last = fmt.Sprintf("status %d: %s", resp.StatusCode, body)
		} else {
			last = err.Error()
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s never answered 200: %s", url, last)
	return ""
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
