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

package reliability_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// operatorProcess is the operator binary, run as users run it.
type operatorProcess struct {
	cmd    *exec.Cmd
	logs   string
	exited chan error
}

// Flags every operator in these tests gets beside its namespace: enough
// workers and client QPS that a fleet of 100 new clusters is not queued behind
// the default single worker, and a sync period longer than any test so that
// nothing converges by periodic resync: only by the operator's reaction to the
// fault.
var operatorFlags = []string{
	"--metrics-bind-address=0", "--health-probe-bind-address=0",
	"--max-concurrent-reconciles=10", "--kube-api-qps=100", "--kube-api-burst=200",
	"--sync-period=30m",
}

func startOperator(t *testing.T, kubeconfig string, args ...string) *operatorProcess {
	t.Helper()
	dir := t.TempDir()
	if keep := os.Getenv("RELIABILITY_LOGS"); keep != "" { // keep the operators' logs there
		dir = keep
	}
	logs := filepath.Join(dir, fmt.Sprintf("%s-%d.log", strings.ReplaceAll(t.Name(), "/", "_"), time.Now().UnixNano()))
	f, err := os.Create(logs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(operatorBinary, append([]string{"--kubeconfig=" + kubeconfig}, append(append([]string{}, operatorFlags...), args...)...)...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &operatorProcess{cmd: cmd, logs: logs, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait(); f.Close() }()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			out, _ := os.ReadFile(logs)
			if len(out) > 8000 {
				out = out[len(out)-8000:]
			}
			t.Logf("operator (pid %d) output, last 8000 bytes:\n%s", cmd.Process.Pid, out)
		}
	})
	return p
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *operatorProcess) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	_, _ = p.wait(10 * time.Second) // killed: how it ended says nothing
}

func (p *operatorProcess) wait(timeout time.Duration) (exited bool, err error) {
	select {
	case err := <-p.exited:
		p.exited <- err // keep it for the next caller
		return true, err
	case <-time.After(timeout):
		return false, nil
	}
}

// apiProxy is an in-process toxiproxy between the operator and kube-apiserver.
type apiProxy struct {
	*toxiproxy.Proxy
}

func startProxy(t *testing.T, upstream string) *apiProxy {
	t.Helper()
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(server, "kube-apiserver", "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return &apiProxy{p}
}

// addToxic adds a toxic on both directions.
func (p *apiProxy) addToxic(t *testing.T, kind string, attributes string) {
	t.Helper()
	for _, stream := range []string{"upstream", "downstream"} {
		js := fmt.Sprintf(`{"name":"%s_%s","type":%q,"stream":%q,"toxicity":1,"attributes":%s}`, kind, stream, kind, stream, attributes)
		if _, err := p.Toxics.AddToxicJson(strings.NewReader(js)); err != nil {
			t.Fatalf("adding toxic %s: %v", js, err)
		}
	}
}

func (p *apiProxy) removeToxic(t *testing.T, kind string) {
	t.Helper()
	for _, stream := range []string{"upstream", "downstream"} {
		if err := p.Toxics.RemoveToxic(context.Background(), kind+"_"+stream); err != nil {
			t.Fatalf("removing toxic %s: %v", kind, err)
		}
	}
}

// kubeconfig writes an administrator kubeconfig whose server is addr
// (host:port), for example the proxy's listener.
func kubeconfig(t *testing.T, c *testcluster.Cluster, addr string) string {
	t.Helper()
	_, raw, err := c.AddUser("starrocks-operator", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	if addr != "" {
		for _, cl := range cfg.Clusters {
			cl.Server = "https://" + addr
		}
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// apiServerAddr is kube-apiserver's host:port.
func apiServerAddr(t *testing.T, c *testcluster.Cluster) string {
	t.Helper()
	u, err := url.Parse(c.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// feOnly is the smallest cluster: one FE StatefulSet and its two Services.
func feOnly(ns, name string) *srv1.StarRocksCluster {
	return &srv1.StarRocksCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: srv1.StarRocksClusterSpec{
			StarRocksFeSpec: &srv1.StarRocksFeSpec{
				StarRocksComponentSpec: srv1.StarRocksComponentSpec{
					StarRocksLoadSpec: srv1.StarRocksLoadSpec{Image: "starrocks/fe-ubuntu:3.3.2", Replicas: ptr.To[int32](1)},
				},
				FeEnvVars: []corev1.EnvVar{{Name: "SPEC_VERSION", Value: "0"}},
			},
		},
	}
}

// createUntil creates obj, retrying while the API server is away (a restart),
// until ctx ends.
func createUntil(ctx context.Context, c *testcluster.Cluster, obj *srv1.StarRocksCluster) error {
	for {
		err := c.Client.Create(ctx, obj.DeepCopy())
		if err == nil || ctx.Err() != nil {
			return err
		}
		if strings.Contains(err.Error(), "already exists") {
			return nil // the previous attempt reached the server before its answer was lost
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// changeSpec sets the FE replicas and the SPEC_VERSION variable of a cluster,
// retrying on conflicts and while the API server is away, until ctx ends.
func changeSpec(ctx context.Context, c *testcluster.Cluster, ns, name string, replicas int32, version string) error {
	for {
		err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
			var src srv1.StarRocksCluster
			if err := c.Client.Get(ctx, keyOf(ns, name), &src); err != nil {
				return err
			}
			src.Spec.StarRocksFeSpec.Replicas = ptr.To(replicas)
			src.Spec.StarRocksFeSpec.FeEnvVars = []corev1.EnvVar{{Name: "SPEC_VERSION", Value: version}}
			return c.Client.Update(ctx, &src)
		})
		if err == nil || ctx.Err() != nil {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// spread runs n actions evenly over d (the first at once), in the background,
// and returns a function that waits for them and returns the first error.
func spread(n int, d time.Duration, action func(i int) error) func() error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	step := time.Duration(0)
	if n > 1 {
		step = d / time.Duration(n)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := action(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}()
			time.Sleep(step)
		}
	}()
	return func() error { wg.Wait(); return first }
}
