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
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/rest"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// apiProxy is a toxiproxy between the operator and its API server
// (operatorOptions.api): a real TCP path whose latency a test raises.
type apiProxy struct {
	proxy    *toxiproxy.Proxy
	upstream *url.URL
}

func newAPIProxy(t *testing.T, cfg *rest.Config) *apiProxy {
	t.Helper()
	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	p := toxiproxy.NewProxy(toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop()), "kube-apiserver", "127.0.0.1:0", u.Host)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return &apiProxy{proxy: p, upstream: u}
}

// config is cfg pointed at the proxy; its certificate still names the API server.
func (p *apiProxy) config(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	if out.TLSClientConfig.ServerName == "" {
		out.TLSClientConfig.ServerName = p.upstream.Hostname()
	}
	u := *p.upstream
	u.Host = p.proxy.Listen
	out.Host = u.String()
	return out
}

// delay holds every chunk of bytes latency long, each way, on the
// connections open and to come.
func (p *apiProxy) delay(t *testing.T, latency time.Duration) {
	t.Helper()
	for _, stream := range []string{"upstream", "downstream"} {
		toxic := fmt.Sprintf(`{"name":"latency_%s","type":"latency","stream":%q,"attributes":{"latency":%d}}`, stream, stream, latency.Milliseconds())
		if _, err := p.proxy.Toxics.AddToxicJson(strings.NewReader(toxic)); err != nil {
			t.Fatal(err)
		}
	}
}

// A BE upgrade through an API server that answers each request in 3 s
// (1.5 s each way): each reconcile of the one worker then lasts seconds,
// and a cluster's looks at FE come further apart than two periods of
// --fe-look-every (1 s here). FE answers at once, so nothing should wait
// for it. Before a deciding look waited for the read it asked for
// (internal/feaccess, answerWait), each look found the read its last look
// asked for ended too long ago: the pre-flight said "the image change
// waits for FE's report" for 9 s and the gate "waits for FE's next
// answer" for 9 s more, in each of 2 runs (BE rolled out 38.0 s after the
// change; 26.4 s with the wait).
func TestSlowAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	t.Parallel()
	c, dir := simulatedWithStarRocks(t)
	ns := "slow"
	testutil.CreateNamespace(t, c.Client, ns)
	api := newAPIProxy(t, c.Config)
	startOperator(t, c, ns, operatorOptions{workers: 1, fe: dir.resolve, feLookEvery: time.Second, api: api})
	f := startFE(t, dir, ns, "sl", simstarrocks.Options{})
	src := beCluster(ns, "sl", 2)
	if err := c.Client.Create(t.Context(), src); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, ns, "sl", 2*time.Minute)
	eventually(t, time.Minute, "2 BEs registered and alive", func(context.Context) (bool, error) { return aliveBEs(f) == 2, nil })
	// Two replicas: BE keeps its data on an emptyDir, and a tablet of one
	// replica would hold the rollout (ephemeral.go).
	if err := f.CreateTable("db", "two", 2, 4); err != nil {
		t.Fatal(err)
	}
	api.delay(t, 1500*time.Millisecond)

	start := time.Now()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Spec.StarRocksBeSpec.Image = "starrocks/be-ubuntu:3.3.3" })
	// BE's status, read every 200 ms past the proxy: what the operator says it waits for.
	var mu sync.Mutex
	said := map[string]int{}
	stop := sample(200*time.Millisecond, func() {
		cur := &srv1.StarRocksCluster{}
		if err := get(t.Context(), c.Client, ns, "sl", cur); err == nil && cur.Status.StarRocksBeStatus != nil {
			mu.Lock()
			said[cur.Status.StarRocksBeStatus.Reason]++
			mu.Unlock()
		}
	})
	waitStatefulSet(t, c, ns, "sl-be", "BE rolled out", 3*time.Minute, func(be *appsv1.StatefulSet) bool {
		return stsImage(be) == "starrocks/be-ubuntu:3.3.3" && rolledOut(be)
	})
	took := time.Since(start)
	stop()
	mu.Lock()
	defer mu.Unlock()
	waited := 0
	for m, n := range said {
		if strings.Contains(m, "waits for FE's report") || strings.Contains(m, "waits for FE's next answer") {
			waited += n
			t.Logf("%4d × %q", n, m)
		}
	}
	t.Logf("BE 3.3.2 → 3.3.3 through an API server 3 s a request: rolled out %s after the change; BE's status said it waited for FE in %d samples of 200 ms",
		took.Round(100*time.Millisecond), waited)
	// A read of the simulated FE takes milliseconds: one sample (a status
	// written between a look and its read's end) is all a loaded machine
	// may show. Without the wait: 92 samples.
	if waited > 5 {
		t.Errorf("BE's status said it waited for FE, which answers at once, in %d samples of 200 ms (%s): the looks found no report fresh enough", waited, 200*time.Millisecond*time.Duration(waited))
	}
}
