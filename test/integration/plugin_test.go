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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/plugin"
	"github.com/srscale/starrocks-operator/internal/plugin/cli"
	"github.com/srscale/starrocks-operator/internal/plugin/examples"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// kubectlStarRocks runs `kubectl starrocks args...` in-process with
// kubeconfig, ages relative to now; it returns stdout and the error the
// binary would print.
func kubectlStarRocks(kubeconfig string, now time.Time, args ...string) (string, error) {
	out, _, err := kubectlStarRocksStderr(kubeconfig, now, args...)
	return out, err
}

// kubectlStarRocksStderr is kubectlStarRocks with what it writes to stderr.
func kubectlStarRocksStderr(kubeconfig string, now time.Time, args ...string) (string, string, error) {
	var out, errOut bytes.Buffer
	cmd := cli.NewCommandAt(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, func() time.Time { return now })
	cmd.SetArgs(append([]string{"--kubeconfig", kubeconfig}, args...))
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// createBackups creates backups and schedules as a user (or a schedule)
// would, and writes their status through the status subresource, as the
// operator's backup controller does.
func createBackups(t *testing.T, c client.Client, backups []*srv1.StarRocksBackup, schedules []*srv1.StarRocksBackupSchedule) {
	t.Helper()
	ctx := context.Background()
	for _, b := range backups {
		st := b.Status
		b.CreationTimestamp, b.Generation, b.Status = metav1.Time{}, 0, srv1.StarRocksBackupStatus{}
		if err := c.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		b.Status = st
		if err := c.Status().Update(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range schedules {
		st := s.Status
		s.CreationTimestamp, s.Generation, s.Status = metav1.Time{}, 0, srv1.StarRocksBackupScheduleStatus{}
		if err := c.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		s.Status = st
		if err := c.Status().Update(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
}

// pluginLine is `kubectl starrocks status -n ns -o json`'s line of cluster name.
func pluginLine(t *testing.T, kubeconfig, ns, name string) plugin.Line {
	t.Helper()
	out, err := kubectlStarRocks(kubeconfig, time.Now(), "status", "-n", ns, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var list plugin.StatusList
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	for _, l := range list.Items {
		if l.Name == name {
			t.Logf("kubectl starrocks status: %+v", l)
			return l
		}
	}
	t.Fatalf("no line for %s/%s:\n%s", ns, name, out)
	return plugin.Line{}
}

// golden compares got with testdata/plugin/<name>; SRSCALE_UPDATE_GOLDEN=1
// writes it instead (review the diff before committing it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "plugin", name)
	if os.Getenv("SRSCALE_UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (SRSCALE_UPDATE_GOLDEN=1 writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (SRSCALE_UPDATE_GOLDEN=1 rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// createExample creates src as a user would and writes its status through
// the status subresource, as the operator does: with the summary the
// operator computes from it (internal/status).
func createExample(t *testing.T, c client.Client, src *srv1.StarRocksCluster) *srv1.StarRocksCluster {
	t.Helper()
	src = src.DeepCopy()
	src.Status.Summary = plugin.Summarize(src)
	return createUnsummarized(t, c, src)
}

// createUnsummarized is createExample with src's status as it is: an
// operator that writes no summary (an older one, the upstream's), or a
// cluster paused since before the operator wrote one.
func createUnsummarized(t *testing.T, c client.Client, src *srv1.StarRocksCluster) *srv1.StarRocksCluster {
	t.Helper()
	ctx := context.Background()
	obj := src.DeepCopy()
	obj.CreationTimestamp, obj.Generation = metav1.Time{}, 0
	if err := c.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	// The generation the status speaks of is the object's: an example of
	// a spec the operator has seen says so whatever its number.
	obj.Status = src.Status
	obj.Status.ObservedGeneration = obj.Generation
	for i := range obj.Status.Conditions {
		obj.Status.Conditions[i].ObservedGeneration = obj.Generation
	}
	if err := c.Status().Update(ctx, obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// TestKubectlPlugin runs `kubectl starrocks` against a real API server
// holding clusters in every state the operator reports (their status
// written through the status subresource in the operator's shapes,
// internal/plugin/examples), then against a cluster the operator itself
// reconciles. The states produced by the operator with StarRocks
// answering (healthy, a BE not Alive) are checked in TestGatedRollouts'
// StarRocksHealthy test, on its simulated cluster.
func TestKubectlPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel()
	c := testcluster.ForTest(t, testcluster.Options{CRDDirectoryPaths: crdPaths(t)})
	ctx := context.Background()
	admin, err := c.WriteKubeconfig("plugin-admin", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	// The examples' times are relative to now; the objects are created
	// after it, so their ages read "just now" in every run.
	now := time.Now()
	testutil.CreateNamespace(t, c.Client, "prod")
	testutil.CreateNamespace(t, c.Client, "staging")
	byName := map[string]*srv1.StarRocksCluster{}
	for _, e := range examples.All("prod", now) {
		if e.Cluster.Name == "healthy" || e.Cluster.Name == "refused" {
			e.Cluster.Labels = map[string]string{"tier": "gold"}
		}
		byName[e.Cluster.Name] = createExample(t, c.Client, e.Cluster)
	}
	createExample(t, c.Client, examples.Healthy("staging", "canary", now))
	// Backups, as the operator's backup controller writes them: the
	// healthy cluster's nightly schedule and its last success 3h ago; the
	// refused one's last success a day ago and a failure since.
	createBackups(t, c.Client, []*srv1.StarRocksBackup{
		examples.Backup("prod", "healthy", "healthy-sales-1", "sales", srv1.BackupSucceeded, 27*time.Hour, now),
		examples.Backup("prod", "healthy", "healthy-sales-2", "sales", srv1.BackupSucceeded, 3*time.Hour, now),
		examples.Backup("prod", "refused", "refused-sales-1", "sales", srv1.BackupSucceeded, 26*time.Hour, now),
		examples.Backup("prod", "refused", "refused-sales-2", "sales", srv1.BackupFailed, 20*time.Minute, now),
	}, []*srv1.StarRocksBackupSchedule{examples.BackupSchedule("prod", "healthy", "healthy-nightly", "sales", now)})
	// The operator's Events, as its recorder writes them (events.k8s.io/v1).
	scaling := byName["scaling-in"]
	for i, e := range []struct{ typ, reason, note string }{
		{corev1.EventTypeNormal, "Updated", "StatefulSet scaling-in-be: replicas"},
		{corev1.EventTypeNormal, srv1.ReasonDecommissioning, "asked FE to decommission scaling-in-be-4:9050, scaling-in-be-5:9050 before BE shrinks from 6 to 4 replicas"},
	} {
		ev := &eventsv1.Event{
			ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "scaling-in." + string(rune('a'+i))},
			EventTime:  metav1.NewMicroTime(now.Add(-time.Duration(7-i) * time.Minute)), Type: e.typ, Reason: e.reason, Note: e.note,
			Action: "Reconcile", ReportingController: "starrocks-operator", ReportingInstance: "starrocks-operator-0",
			Regarding: corev1.ObjectReference{APIVersion: "starrocks.com/v1", Kind: "StarRocksCluster", Namespace: "prod", Name: scaling.Name, UID: scaling.UID},
		}
		if err := c.Client.Create(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("status: one line per cluster, those needing a person first, and the summary", func(t *testing.T) {
		out, err := kubectlStarRocks(admin, now, "status", "-n", "prod")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "status.golden", out)
		all, err := kubectlStarRocks(admin, now, "status", "-A", "-o", "wide")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "status-all-wide.golden", all)
		gold, err := kubectlStarRocks(admin, now, "status", "-A", "-l", "tier=gold")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(gold, "refused") || !strings.Contains(gold, "healthy") || strings.Contains(gold, "canary") || !strings.Contains(gold, "2 clusters:") {
			t.Errorf("-l tier=gold:\n%s", gold)
		}
	})

	t.Run("status -o json and yaml give scripts every line and the summary", func(t *testing.T) {
		out, err := kubectlStarRocks(admin, now, "status", "-A", "-o", "json", "--chunk-size", "2")
		if err != nil {
			t.Fatal(err)
		}
		var list plugin.StatusList
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		if list.Kind != plugin.StatusListKind || len(list.Items) != 10 || list.Summary != (plugin.Summary{Healthy: 2, Progressing: 4, Attention: 4}) {
			t.Errorf("kind %s, %d items, summary %+v:\n%s", list.Kind, len(list.Items), list.Summary, out)
		}
		states := map[string]string{}
		for _, l := range list.Items {
			states[l.Namespace+"/"+l.Name] = l.State + " " + l.Reason
		}
		for name, want := range map[string]string{
			"prod/healthy": "healthy ", "prod/rolling-out": "progressing RollingOut", "prod/scaling-in": "progressing Decommissioning",
			"prod/upgrade-paused": "progressing OrderedRollout", "prod/refused": "attention UpgradePathRefused",
			"prod/fe-unreachable": "attention FEUnreachable", "prod/recovering": "progressing DisasterRecovery", "prod/paused": "attention Paused",
			"prod/be-down":   "attention NodesNotAlive",
			"staging/canary": "healthy ",
		} {
			if states[name] != want {
				t.Errorf("%s: %q, want %q", name, states[name], want)
			}
		}
		y, err := kubectlStarRocks(admin, now, "status", "-n", "prod", "-o", "yaml")
		if err != nil || !strings.Contains(y, "kind: StatusList") || !strings.Contains(y, "doing: scale-in BE 6→4, 1,203 tablets to move") {
			t.Errorf("-o yaml (%v):\n%s", err, y)
		}
		jp, err := kubectlStarRocks(admin, now, "status", "-n", "prod", "-o", "jsonpath={.summary.attention}")
		if err != nil || jp != "4" {
			t.Errorf("-o jsonpath: %q (%v)", jp, err)
		}
	})

	t.Run("describe tells each cluster's story", func(t *testing.T) {
		for _, e := range examples.All("prod", now) {
			out, err := kubectlStarRocks(admin, now, "describe", "-n", "prod", e.Cluster.Name)
			if err != nil {
				t.Fatalf("%s: %v", e.Cluster.Name, err)
			}
			golden(t, "describe-"+e.Cluster.Name+".golden", out)
		}
	})

	t.Run("describe -o json and yaml give scripts the same story", func(t *testing.T) {
		out, err := kubectlStarRocks(admin, now, "describe", "-n", "prod", "scaling-in", "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		var s plugin.Story
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		if s.Kind != plugin.StoryKind || s.Status.State != "progressing" || s.Status.Doing != "scale-in BE 6→4, 1,203 tablets to move" ||
			len(s.Conditions) != 5 || len(s.Nodes) != 2 || s.Nodes[1].FE == nil || s.Nodes[1].FE.Alive != 6 || s.UnhealthyTablets == nil ||
			len(s.Holds) != 1 || len(s.Events) != 2 || s.Events[1].Reason != srv1.ReasonDecommissioning || s.Backups != nil || s.Status.LastBackup != "-" ||
			!strings.Contains(out, `"command": "kubectl annotate starrockscluster -n prod scaling-in starrocks.com/skip-decommission=true"`) {
			t.Errorf("describe -o json of scaling-in:\n%s", out)
		}
		out, err = kubectlStarRocks(admin, now, "describe", "-n", "prod", "refused", "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		s = plugin.Story{}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		if s.Status.State != "attention" || s.Backups == nil || len(s.Backups.Databases) != 1 || s.Backups.Databases[0].FailedSince != 1 ||
			s.Backups.Databases[0].Newest != "refused-sales-2" || s.Backups.Databases[0].NewestReason != srv1.ReasonJobTimeout || s.Status.BackupsFailed != 1 {
			t.Errorf("describe -o json of refused:\n%s", out)
		}
		y, err := kubectlStarRocks(admin, now, "describe", "-n", "prod", "healthy", "-o", "yaml")
		if err != nil || !strings.Contains(y, "kind: ClusterStory") || !strings.Contains(y, "schedule: '@daily'") || !strings.Contains(y, "lastSucceeded: healthy-sales-2") {
			t.Errorf("describe -o yaml (%v):\n%s", err, y)
		}
		jp, err := kubectlStarRocks(admin, now, "describe", "-n", "prod", "refused", "-o", "jsonpath={.escapeHatches[0].command}")
		if err != nil || jp != "kubectl annotate starrockscluster -n prod refused starrocks.com/upgrade-path-check=off" {
			t.Errorf("describe -o jsonpath: %q (%v)", jp, err)
		}
	})

	t.Run("pause and resume set and remove the operator's ignored annotation, and nothing else", func(t *testing.T) {
		key := types.NamespacedName{Namespace: "prod", Name: "healthy"}
		var before, after srv1.StarRocksCluster
		if err := c.Client.Get(ctx, key, &before); err != nil {
			t.Fatal(err)
		}
		out, err := kubectlStarRocks(admin, now, "pause", "-n", "prod", "healthy")
		if err != nil || !strings.Contains(out, "StarRocks cluster prod/healthy paused") {
			t.Fatalf("pause: %q, %v", out, err)
		}
		if err := c.Client.Get(ctx, key, &after); err != nil {
			t.Fatal(err)
		}
		if after.Annotations[srv1.IgnoredAnnotation] != "true" || after.Generation != before.Generation || len(after.Annotations) != 1 {
			t.Errorf("after pause: annotations %v, generation %d (was %d)", after.Annotations, after.Generation, before.Generation)
		}
		if line, _ := kubectlStarRocks(admin, now, "status", "-n", "prod", "-l", "tier=gold"); !strings.Contains(line, "paused: the operator leaves it alone") {
			t.Errorf("status of a paused cluster:\n%s", line)
		}
		if out, err := kubectlStarRocks(admin, now, "pause", "-n", "prod", "healthy"); err != nil || !strings.Contains(out, "paused already") {
			t.Errorf("pause twice: %q, %v", out, err)
		}
		if out, err := kubectlStarRocks(admin, now, "resume", "-n", "prod", "healthy"); err != nil || !strings.Contains(out, "resumed") {
			t.Fatalf("resume: %q, %v", out, err)
		}
		if err := c.Client.Get(ctx, key, &after); err != nil {
			t.Fatal(err)
		}
		if _, ok := after.Annotations[srv1.IgnoredAnnotation]; ok || after.Generation != before.Generation {
			t.Errorf("after resume: annotations %v, generation %d", after.Annotations, after.Generation)
		}
	})

	t.Run("errors name the cluster and what to do", func(t *testing.T) {
		_, err := kubectlStarRocks(admin, now, "describe", "-n", "prod", "nope")
		if err == nil || err.Error() != "StarRocks cluster prod/nope not found: list the clusters with `kubectl starrocks status -n prod` (or -A)" {
			t.Errorf("describe of a missing cluster: %v", err)
		}
		_, err = kubectlStarRocks(admin, now, "pause", "-n", "prod")
		if err == nil || !strings.Contains(err.Error(), "name one cluster") {
			t.Errorf("pause without a name: %v", err)
		}
		_, err = kubectlStarRocks(admin, now, "status", "-l", "tier in (")
		if err == nil || !strings.Contains(err.Error(), `label selector "tier in ("`) {
			t.Errorf("a bad selector: %v", err)
		}
	})

	t.Run("the Role in docs/ is enough for status and describe; pause needs patch, and says so", func(t *testing.T) {
		applyRBACDoc(t, c)
		bind(t, c, "prod", "starrocks-plugin-viewer", "viewer")
		viewer, err := c.WriteKubeconfig("viewer")
		if err != nil {
			t.Fatal(err)
		}
		if out, errOut, err := kubectlStarRocksStderr(viewer, now, "status", "-n", "prod"); err != nil || !strings.Contains(out, "9 clusters") ||
			!strings.Contains(out, "3h ago") || errOut != "" {
			t.Errorf("status as the viewer: %v\n%s%s", err, out, errOut)
		}
		if out, err := kubectlStarRocks(viewer, now, "describe", "-n", "prod", "healthy"); err != nil || !strings.Contains(out, "Schedule healthy-nightly: @daily") {
			t.Errorf("describe as the viewer: %v\n%s", err, out)
		}
		if out, err := kubectlStarRocks(viewer, now, "describe", "-n", "prod", "scaling-in"); err != nil || !strings.Contains(out, "asked FE to decommission") {
			t.Errorf("describe as the viewer: %v\n%s", err, out)
		}
		_, err = kubectlStarRocks(viewer, now, "pause", "-n", "prod", "healthy")
		if err == nil || !strings.Contains(err.Error(), "annotating StarRocks cluster prod/healthy: not allowed") || !strings.Contains(err.Error(), cli.RBACDoc) {
			t.Errorf("pause as the viewer: %v", err)
		}
		_, err = kubectlStarRocks(viewer, now, "status", "-A")
		if err == nil || !strings.Contains(err.Error(), "listing StarRocks clusters in all namespaces: not allowed") {
			t.Errorf("status -A with a namespaced Role: %v", err)
		}
		// A Role without the backup kinds (the Role before them): status
		// works, says it does not know the backups, and names the Role.
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "clusters-only"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"starrocks.com"}, Resources: []string{"starrocksclusters"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"get", "list"}},
		}}
		if err := c.Client.Create(ctx, role); err != nil {
			t.Fatal(err)
		}
		bind(t, c, "prod", "clusters-only", "old-viewer")
		old, err := c.WriteKubeconfig("old-viewer")
		if err != nil {
			t.Fatal(err)
		}
		out, errOut, err := kubectlStarRocksStderr(old, now, "status", "-n", "prod")
		if err != nil || strings.Contains(out, "3h ago") || !strings.Contains(out, "  ?  ") ||
			!strings.Contains(errOut, "warning: the backups in namespace prod are not shown") || !strings.Contains(errOut, cli.RBACDoc) {
			t.Errorf("status without the backup kinds: %v\n%s%s", err, out, errOut)
		}
		// The control: a user without the Role is refused status itself.
		stranger, err := c.WriteKubeconfig("stranger")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kubectlStarRocks(stranger, now, "status", "-n", "prod"); err == nil {
			t.Error("status without the Role worked: the Role test proves nothing")
		}
	})

	t.Run("status reads each cluster's summary from a server-side table; a cluster without one is read whole, the same line", func(t *testing.T) {
		// The same clusters and backups in namespace legacy, their status
		// as an operator that writes no summary leaves it.
		testutil.CreateNamespace(t, c.Client, "legacy")
		for _, e := range examples.All("legacy", now) {
			createUnsummarized(t, c.Client, e.Cluster)
		}
		createBackups(t, c.Client, []*srv1.StarRocksBackup{
			examples.Backup("legacy", "healthy", "healthy-sales-1", "sales", srv1.BackupSucceeded, 27*time.Hour, now),
			examples.Backup("legacy", "healthy", "healthy-sales-2", "sales", srv1.BackupSucceeded, 3*time.Hour, now),
			examples.Backup("legacy", "refused", "refused-sales-1", "sales", srv1.BackupSucceeded, 26*time.Hour, now),
			examples.Backup("legacy", "refused", "refused-sales-2", "sales", srv1.BackupFailed, 20*time.Minute, now),
		}, []*srv1.StarRocksBackupSchedule{examples.BackupSchedule("legacy", "healthy", "healthy-nightly", "sales", now)})
		legacy, err := kubectlStarRocks(admin, now, "status", "-n", "legacy")
		if err != nil {
			t.Fatal(err)
		}
		prod, err := kubectlStarRocks(admin, now, "status", "-n", "prod")
		if err != nil {
			t.Fatal(err)
		}
		if legacy != prod {
			t.Errorf("clusters without a summary, read whole:\n%s\nwith one, from the table:\n%s", legacy, prod)
		}
		// The table's columns are the summary's, not the objects': a
		// summary changed behind the operator's back shows as it reads.
		cur := &srv1.StarRocksCluster{}
		if err := c.Client.Get(ctx, client.ObjectKey{Namespace: "prod", Name: "healthy"}, cur); err != nil {
			t.Fatal(err)
		}
		cur.Status.Summary.Doing = "read from the summary"
		cur.Status.Summary.State = "progressing"
		if err := c.Client.Status().Update(ctx, cur); err != nil {
			t.Fatal(err)
		}
		defer func() {
			cur.Status.Summary = plugin.Summarize(cur)
			if err := c.Client.Status().Update(ctx, cur); err != nil {
				t.Fatal(err)
			}
		}()
		out, err := kubectlStarRocks(admin, now, "status", "-n", "prod", "-l", "tier=gold")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "read from the summary") || !strings.Contains(out, "2 clusters: 0 healthy, 1 progressing, 1 need attention") {
			t.Errorf("status did not read the summary's columns:\n%s", out)
		}
		if wide, err := kubectlStarRocks(admin, now, "status", "-n", "prod", "-l", "tier=gold", "-o", "wide"); err != nil || strings.Contains(wide, "read from the summary") {
			t.Errorf("-o wide reads the objects, whose status gives the line (%v):\n%s", err, wide)
		}
	})

	t.Run("a cluster the operator reconciles reads as it writes it", func(t *testing.T) {
		testutil.CreateNamespace(t, c.Client, "live")
		startOperator(t, c, "live", operatorOptions{})
		src := feOnly("live", "fresh")
		if err := c.Client.Create(ctx, src); err != nil {
			t.Fatal(err)
		}
		var out string
		eventually(t, time.Minute, "the operator's status", func(context.Context) (bool, error) {
			var err error
			out, err = kubectlStarRocks(admin, time.Now(), "status", "-n", "live", "-o", "json")
			return err == nil && strings.Contains(out, `"phase": "reconciling"`), nil
		})
		var list plugin.StatusList
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		// No pods on an API server alone: FE is created and never ready.
		l := list.Items[0]
		if l.State != "progressing" || l.FE.String() != "0/1" || l.Healthy != "?" || l.Version != "? → 3.3.2" || !strings.HasPrefix(l.Doing, "starting: FE") {
			t.Errorf("the operator's new cluster: %+v", l)
		}
		// The operator wrote the summary the table reads: the same line.
		cur := &srv1.StarRocksCluster{}
		if err := c.Client.Get(ctx, client.ObjectKeyFromObject(src), cur); err != nil {
			t.Fatal(err)
		}
		if want := plugin.Summarize(cur); !equality.Semantic.DeepEqual(cur.Status.Summary, want) {
			t.Errorf("the operator's summary %+v, the status gives %+v", cur.Status.Summary, want)
		}
		table, err := kubectlStarRocks(admin, time.Now(), "status", "-n", "live")
		if err != nil || !strings.Contains(table, "fresh  0/1  -   -   ? → 3.3.2  ?        -            starting: FE") {
			t.Errorf("status of the operator's cluster (%v):\n%s", err, table)
		}
	})
}

// applyRBACDoc creates the Roles of docs/kubectl-plugin-rbac.yaml in prod.
func applyRBACDoc(t *testing.T, c *testcluster.Cluster) {
	t.Helper()
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "docs", "kubectl-plugin-rbac.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var role rbacv1.Role
		if err := dec.Decode(&role); err != nil {
			if errors.Is(err, io.EOF) {
				return
			}
			t.Fatal(err)
		}
		var obj client.Object = &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: role.Name, Namespace: "prod"}, Rules: role.Rules}
		if role.Kind == "ClusterRole" {
			obj = &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role.Name}, Rules: role.Rules}
		}
		if err := c.Client.Create(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
	}
}

func bind(t *testing.T, c *testcluster.Cluster, ns, role, user string) {
	t.Helper()
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: role + "-" + user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if err := c.Client.Create(context.Background(), rb); err != nil {
		t.Fatal(err)
	}
}
