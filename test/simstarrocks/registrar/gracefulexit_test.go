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

package registrar_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/simstarrocks/registrar"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// What the simulation can show of issue 36's probe timing: kwok runs no
// probe, so only the pod's deletion can take it out of the FE Service. A
// deleted FE pod's endpoint leaves the EndpointSlice (the EndpointSlice
// controller marks a pod with a deletionTimestamp not ready:
// k8s.io/endpointslice utils.go podToEndpoint, ready = serving &&
// !terminating) while its FE, told to exit by the preStop hook's
// `stop_fe.sh -g`, answers for 15 s or more (simstarrocks GracefulExit).
// The control: an FE that exits without its pod's deletion stays in the
// endpoints, failing /api/health and then refusing connections, because
// here nothing (no readiness probe) takes its pod out.
func TestFEGracefulExitAndEndpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	c := testcluster.ForTest(t, testcluster.Options{Simulated: true})
	const ns = "reg-fe-exit"
	dir := &directory{sims: map[string]*simstarrocks.StarRocks{}}
	sim := dir.add(t, ns, "c", simstarrocks.Options{})
	registrar.Start(context.Background(), t, c.Config, dir.lookup, registrar.Options{FEGracefulExit: true, Pod0LeaderTimeout: 4 * time.Second})
	src := cluster(ns)
	src.Spec.StarRocksFeSpec.Replicas = ptr.To[int32](3)
	src.Spec.StarRocksFeSpec.StorageVolumes = []srv1.StorageVolume{{Name: "fe-meta", StorageSize: "1Gi", MountPath: "/opt/starrocks/fe/meta"}}
	create(t, c, ns, resources.FE(src, resources.Config{}).Objects()...)
	fe := func(i int) string { return fqdn(ns, fmt.Sprintf("c-fe-%d", i), "c-fe-search") }
	poll(t, 60*time.Second, "FE-0 leads", func() bool { return sim.Leader() == fe(0) })
	for i := 1; i < 3; i++ {
		waitFrontend(t, sim, fe(i), "FOLLOWER")
	}
	service := src.FeServiceName()

	t.Run("a deleted FE pod leaves the FE Service's endpoints before its FE stops answering", func(t *testing.T) {
		uid := pod(t, c, ns, "c-fe-2").UID
		poll(t, 30*time.Second, "c-fe-2 ready in the endpoints", func() bool { return endpointState(t, c, ns, service, uid) == endpointReady })
		stops := len(sim.Stops())
		// Taken before the call: the registrar may see the deletion and
		// start the exit before the call returns here.
		deleted := time.Now()
		if err := c.Client.Delete(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c-fe-2"}}); err != nil {
			t.Fatal(err)
		}
		tl := watchExit(t, c, sim, fe(2), ns, service, uid, stops, 90*time.Second)
		at := func(x time.Time) string {
			if x.IsZero() {
				return "never"
			}
			return x.Sub(deleted).String()
		}
		t.Logf("after the deletion: /api/health 500 at %s, out of the endpoints at %s, last answer at %s, stopped at %s",
			at(tl.unhealthy), at(tl.left), at(tl.lastAnswer), at(tl.stopped))
		if tl.left.IsZero() || !tl.left.Before(tl.stopped) {
			t.Errorf("the pod left the endpoints at %s, not before its FE stopped at %s", at(tl.left), at(tl.stopped))
		}
		if tl.left.IsZero() || !tl.lastAnswer.After(tl.left) {
			t.Errorf("FE answered last at %s, not after the pod left the endpoints (%s): it did not drain", at(tl.lastAnswer), at(tl.left))
		}
		// The exit began after the deletion.
		if d := tl.stopped.Sub(deleted); d <= 15*time.Second {
			t.Errorf("FE stopped %s after its pod's deletion, before min_graceful_exit_time_second (15 s)", d)
		}
		waitFrontend(t, sim, fe(2), "FOLLOWER") // the replacement starts once the old FE ended
	})
	t.Run("control: an FE exiting without its pod's deletion stays in the endpoints while it fails and after it stops", func(t *testing.T) {
		uid := pod(t, c, ns, "c-fe-1").UID
		poll(t, 30*time.Second, "c-fe-1 ready in the endpoints", func() bool { return endpointState(t, c, ns, service, uid) == endpointReady })
		// stop_fe.sh -g run in the container, as a container restart's
		// preStop would: no deletion, and kwok runs no readiness probe.
		stops := len(sim.Stops())
		if _, ok := sim.GracefulExit(fe(1)); !ok {
			t.Fatal("FE-1 did not begin a graceful exit")
		}
		began := time.Now()
		tl := watchExit(t, c, sim, fe(1), ns, service, uid, stops, 90*time.Second)
		if !tl.left.IsZero() {
			t.Errorf("the pod left the endpoints at %s without a deletion or a probe", tl.left.Sub(began))
		}
		if tl.stopped.IsZero() || endpointState(t, c, ns, service, uid) != endpointReady {
			t.Errorf("want a stopped FE whose pod is still a ready endpoint; stopped at %s, endpoint %s", tl.stopped.Sub(began), endpointState(t, c, ns, service, uid))
		}
		if db := plainClient(t, sim.AddressOf(fe(1))); db.PingContext(context.Background()) == nil {
			t.Error("the stopped FE still answers")
		}
	})
}

type endpoint string

const (
	endpointReady    endpoint = "ready"
	endpointNotReady endpoint = "not ready"
	endpointAbsent   endpoint = "absent"
)

// endpointState is the pod uid's endpoint in the Service's EndpointSlices.
func endpointState(t *testing.T, c *testcluster.Cluster, ns, service string, uid types.UID) endpoint {
	t.Helper()
	var slices discoveryv1.EndpointSliceList
	if err := c.Client.List(context.Background(), &slices, client.InNamespace(ns), client.MatchingLabels{discoveryv1.LabelServiceName: service}); err != nil {
		t.Fatal(err)
	}
	for _, s := range slices.Items {
		for _, e := range s.Endpoints {
			if e.TargetRef != nil && e.TargetRef.UID == uid {
				if ptr.Deref(e.Conditions.Ready, true) {
					return endpointReady
				}
				return endpointNotReady
			}
		}
	}
	return endpointAbsent
}

// exitTimeline is when, first, an exiting FE's /api/health answered 500,
// its pod's endpoint stopped being ready, and its FE refused a connection;
// and when it last answered a statement.
type exitTimeline struct {
	unhealthy, left, stopped, lastAnswer time.Time
}

// watchExit samples an exiting FE every 100 ms until its process ended
// (sim.Stops: a replacement may start at once under the same host).
// stopsBefore is len(sim.Stops()) before the exit was started.
func watchExit(t *testing.T, c *testcluster.Cluster, sim *simstarrocks.StarRocks, host, ns, service string, uid types.UID, stopsBefore int, timeout time.Duration) exitTimeline {
	t.Helper()
	var tl exitTimeline
	db := plainClient(t, sim.AddressOf(host))
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, s := range sim.Stops()[stopsBefore:] {
			if s.Host == host {
				tl.stopped = s.At
				return tl
			}
		}
		// Each time is taken once its observation is made.
		if tl.unhealthy.IsZero() && sim.FrontendHealth(host) == http.StatusInternalServerError {
			tl.unhealthy = time.Now()
		}
		if tl.left.IsZero() && endpointState(t, c, ns, service, uid) != endpointReady {
			tl.left = time.Now()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := db.ExecContext(ctx, "SHOW FRONTENDS")
		cancel()
		if err == nil {
			tl.lastAnswer = time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not stop within %s", host, timeout)
	return tl
}

// plainClient makes a new connection for every statement, as a client
// reaching FE through the Service does after its pool drops one.
func plainClient(t *testing.T, addr string) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = "tcp", addr, "root"
	cfg.Timeout, cfg.ReadTimeout = 2*time.Second, 2*time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxIdleConns(0)
	t.Cleanup(func() { _ = db.Close() })
	return db
}
