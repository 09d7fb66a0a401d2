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
	"slices"
	"strings"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// TLS to FE (DESIGN §12) on the simulated cluster: one operator at the
// default --fe-ssl-mode (PREFERRED) and a fleet mixing the three kinds of
// FE, each cluster annotated starrocks.com/fe-ssl-mode where it needs
// a stronger mode (a weaker one is ignored, with one Warning Event). Per kind, one health read (StarRocksHealthy) and one BE
// scale-in (FE decommissions, then BE shrinks); a mode the FE cannot speak
// holds the scale-in with its own reason, and goes on once the annotation
// is fixed. The whole matrix of modes runs against the simulated FE alone
// (test/simstarrocks, TestSSLModesAgainstEachKindOfFE).
func TestFETLS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	c, dir := simulatedWithStarRocks(t)
	testutil.CreateNamespace(t, c.Client, "tls")
	startOperator(t, c, "tls", operatorOptions{workers: 4, fe: dir.resolve, feLookEvery: time.Second})
	ca := simstarrocks.NewCA(t)
	requires := func() simstarrocks.Options {
		return simstarrocks.Options{TLS: ca.ServerTLS(t, "127.0.0.1"), ForceSecureTransport: true}
	}
	offers := func() simstarrocks.Options { return simstarrocks.Options{TLS: ca.ServerTLS(t, "127.0.0.1")} }

	t.Run("fleet", func(t *testing.T) {
		t.Run("FE requires TLS, PREFERRED: healthy and a scale-in, over TLS", func(t *testing.T) {
			t.Parallel()
			testTLSScaleIn(t, c, dir, "requires", "", requires(), "TLS")
		})
		t.Run("FE offers TLS, annotated REQUIRED: healthy and a scale-in, over TLS", func(t *testing.T) {
			t.Parallel()
			testTLSScaleIn(t, c, dir, "offers", "REQUIRED", offers(), "TLS")
		})
		t.Run("FE without TLS, PREFERRED: healthy and a scale-in, in plaintext", func(t *testing.T) {
			t.Parallel()
			testTLSScaleIn(t, c, dir, "plain", "", simstarrocks.Options{}, "plaintext")
		})
		t.Run("FE requires TLS, annotated DISABLED: a weaker annotation is ignored with one Warning, healthy and a scale-in over TLS", func(t *testing.T) {
			t.Parallel()
			testTLSScaleIn(t, c, dir, "weaker", "DISABLED", requires(), "TLS")
			eventually(t, time.Minute, "one Warning FESSLModeIgnored", func(ctx context.Context) (bool, error) {
				var evs eventsv1.EventList
				if err := c.Client.List(ctx, &evs, client.InNamespace("tls")); err != nil {
					return false, err
				}
				n := 0
				for _, e := range evs.Items {
					if e.Regarding.Name == "weaker" && e.Reason == srv1.ReasonFESSLModeIgnored {
						n += max(1, int(ptrSeriesCount(e.Series)))
					}
				}
				if n > 1 {
					t.Errorf("%d FESSLModeIgnored Events, want one", n)
				}
				return n == 1, nil
			})
		})
		t.Run("FE without TLS, annotated REQUIRED: FETLSFailed holds the scale-in until the annotation goes", func(t *testing.T) {
			t.Parallel()
			testTLSRefused(t, c, dir, "notls", "REQUIRED", simstarrocks.Options{}, srv1.ReasonFETLSFailed)
		})
		t.Run("a bad annotation: InvalidFESSLMode and one Event for that cluster alone", func(t *testing.T) {
			t.Parallel()
			testBadSSLModeAnnotation(t, c, dir)
		})
	})
}

// tlsCluster is FE 1 and BE 2 named name, annotated with mode unless it is "".
func tlsCluster(t *testing.T, c *testcluster.Cluster, dir *feDirectory, name, mode string, opts simstarrocks.Options) (*simstarrocks.StarRocks, *srv1.StarRocksCluster) {
	t.Helper()
	f := startFE(t, dir, "tls", name, opts)
	src := beCluster("tls", name, 2)
	if mode != "" {
		src.Annotations = map[string]string{srv1.FESSLModeAnnotation: mode}
	}
	if err := c.Client.Create(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, "tls", name, 2*time.Minute)
	eventually(t, time.Minute, "2 BEs registered and alive", func(context.Context) (bool, error) { return aliveBEs(f) == 2, nil })
	return f, src
}

func testTLSScaleIn(t *testing.T, c *testcluster.Cluster, dir *feDirectory, name, mode string, opts simstarrocks.Options, transport string) {
	t.Helper()
	f, src := tlsCluster(t, c, dir, name, mode, opts)
	condition(t, c, "tls", name, "StarRocksHealthy from FE's word", srv1.ConditionStarRocksHealthy, srv1.ReasonStarRocksHealthy)
	setBEReplicas(t, c, src, 1)
	waitStatefulSet(t, c, "tls", name+"-be", "BE shrunk to 1", time.Minute, shrunkTo(1))
	if n := len(f.StatementsLike("ALTER SYSTEM DECOMMISSION")); n != 1 {
		t.Errorf("%d DECOMMISSION statements, want 1", n)
	}
	if hosts := backendHosts(f); !slices.Equal(hosts, []string{beHost("tls", name, 0)}) {
		t.Errorf("FE lists BEs %q after the scale-in, want be-0", hosts)
	}
	overTLS, plaintext := f.LoginsByTransport()
	if (transport == "TLS") != (overTLS > 0 && plaintext == 0) || (transport == "plaintext") != (plaintext > 0 && overTLS == 0) {
		t.Errorf("logins: %d over TLS, %d in plaintext; want every one %s", overTLS, plaintext, transport)
	}
	t.Logf("%s: %d logins over TLS, %d in plaintext", name, overTLS, plaintext)
}

func ptrSeriesCount(s *eventsv1.EventSeries) int32 {
	if s == nil {
		return 0
	}
	return s.Count
}

func testTLSRefused(t *testing.T, c *testcluster.Cluster, dir *feDirectory, name, mode string, opts simstarrocks.Options, reason string) {
	t.Helper()
	f, src := tlsCluster(t, c, dir, name, mode, opts)
	got := conditionFalse(t, c, "tls", name, "StarRocksHealthy says why FE cannot be read", srv1.ConditionStarRocksHealthy, reason)
	t.Logf("StarRocksHealthy=False %s: %s", reason, meta.FindStatusCondition(got.Status.Conditions, srv1.ConditionStarRocksHealthy).Message)
	setBEReplicas(t, c, src, 1)
	got = condition(t, c, "tls", name, "the scale-in held with the TLS reason", srv1.ConditionProgressing, reason)
	if msg := meta.FindStatusCondition(got.Status.Conditions, srv1.ConditionProgressing).Message; !strings.Contains(msg, "BE keeps 2 replicas") {
		t.Errorf("Progressing message %q does not say BE keeps its replicas", msg)
	}
	if n := len(f.StatementsLike("ALTER SYSTEM DECOMMISSION")); n != 0 {
		t.Errorf("%d DECOMMISSION statements reached FE, want none", n)
	}
	// The fix: the operator's own mode (PREFERRED) speaks to this FE.
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { delete(s.Annotations, srv1.FESSLModeAnnotation) })
	waitStatefulSet(t, c, "tls", name+"-be", "BE shrunk to 1 once the annotation went", time.Minute, shrunkTo(1))
	condition(t, c, "tls", name, "StarRocksHealthy once FE is read", srv1.ConditionStarRocksHealthy, srv1.ReasonStarRocksHealthy)
}

func testBadSSLModeAnnotation(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	t.Helper()
	startFE(t, dir, "tls", "typo", simstarrocks.Options{})
	src := beCluster("tls", "typo", 2)
	src.Annotations = map[string]string{srv1.FESSLModeAnnotation: "STRICT"}
	if err := c.Client.Create(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	got := condition(t, c, "tls", "typo", "the bad annotation reported", srv1.ConditionReconcileError, srv1.ReasonInvalidFESSLMode)
	msg := meta.FindStatusCondition(got.Status.Conditions, srv1.ConditionReconcileError).Message
	if !strings.Contains(msg, srv1.FESSLModeAnnotation) || !strings.Contains(msg, "STRICT") {
		t.Errorf("ReconcileError message %q names neither the annotation nor its value", msg)
	}
	time.Sleep(2 * time.Second) // more reconciles: still one Event
	if n := warningsIn(context.Background(), t, c, "tls", "typo", srv1.ReasonInvalidFESSLMode); n != 1 {
		t.Errorf("%d Warning Events %s, want 1", n, srv1.ReasonInvalidFESSLMode)
	}
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) { s.Annotations[srv1.FESSLModeAnnotation] = "preferred" })
	waitRunning(t, c, "tls", "typo", 2*time.Minute)
}

// conditionFalse waits for a condition False with reason.
func conditionFalse(t *testing.T, c *testcluster.Cluster, ns, name, what, typ, reason string) *srv1.StarRocksCluster {
	t.Helper()
	src := &srv1.StarRocksCluster{}
	eventually(t, time.Minute, what, func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, name, src); err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(src.Status.Conditions, typ)
		return cond != nil && cond.Status == metav1.ConditionFalse && cond.Reason == reason, nil
	})
	return src
}
