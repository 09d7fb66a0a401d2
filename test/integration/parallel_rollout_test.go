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
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/test/internal/testutil"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
	"github.com/srscale/starrocks-operator/test/testcluster"
)

// parallelClass is the StorageClass of the parallel rollouts' claims (the
// simulated cluster provisions every claim).
const parallelClass = "parallel"

// Parallel rollouts (starrocks.com/rollout: parallel, docs/rollouts.md):
// a confirmed image change replaces every pod of a component at once, and
// the next component waits for StarRocks' word on all of them.
func TestParallelRollout(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated cluster")
	}
	t.Parallel()
	c, dir := simulatedWithStarRocks(t)
	testutil.CreateNamespace(t, c.Client, "par")
	makeParallelClass(t, c)
	startOperator(t, c, "par", operatorOptions{workers: 4, fe: dir.resolve, feLookEvery: gateLookEvery})

	t.Run("a confirmed upgrade replaces every BE pod at once, then, once StarRocks counts every tablet healthy, every FE pod at once", func(t *testing.T) {
		testParallelUpgrade(t, c, dir)
	})
	t.Run("a stale confirmation rolls BE one pod at a time and says so", func(t *testing.T) {
		testStaleConfirmation(t, c, dir)
	})
	t.Run("a BE on an emptyDir is refused the parallel rollout: one pod at a time, and says so", func(t *testing.T) {
		testEmptyDirRefused(t, c, dir)
	})
	t.Run("an operator stopped before the pods go, and again once they went, finishes the rollout, deleting each pod once", func(t *testing.T) {
		testParallelRestart(t, c, dir)
	})
}

func testParallelRestart(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	const ns, beTo = "par-restart", "starrocks/be-ubuntu:3.3.3"
	testutil.CreateNamespace(t, c.Client, ns)
	oo := operatorOptions{workers: 2, fe: dir.resolve, feLookEvery: gateLookEvery}
	op := startOperator(t, c, ns, oo)
	src := parallelCluster(ns, "rs", 1, 3)
	f := startGated(t, c, dir, src, simstarrocks.Options{CatchUp: catchUp}, 30)
	before := podUIDs(t, c, ns, "rs-be-")
	pw := watchPods(t, c, ns)
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Annotations = map[string]string{srv1.RolloutAnnotation: srv1.RolloutParallel, srv1.RolloutImageAnnotation: beTo}
		s.Spec.StarRocksBeSpec.Image = beTo
	})
	be := &appsv1.StatefulSet{}
	// The first stop: the StatefulSet is OnDelete, no pod went yet (or a few).
	eventually(t, time.Minute, "BE OnDelete", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, "rs-be", be); err != nil {
			return false, err
		}
		return be.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType, nil
	})
	op.stop()
	kept := 0
	for name, uid := range podUIDs(t, c, ns, "rs-be-") {
		if before[name] == uid {
			kept++
		}
	}
	t.Logf("stopped with the StatefulSet OnDelete: %d of 3 BE pods not replaced yet", kept)
	op = startOperator(t, c, ns, oo)
	// The second stop: once the first old pod is seen going.
	eventually(t, time.Minute, "a BE pod replaced", func(ctx context.Context) (bool, error) {
		var pods corev1.PodList
		if err := c.Client.List(ctx, &pods, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if strings.HasPrefix(p.Name, "rs-be-") && (p.DeletionTimestamp != nil || before[p.Name] != string(p.UID)) {
				return true, nil
			}
		}
		return false, nil
	})
	op.stop()
	time.Sleep(time.Second) // the pods go on without an operator
	startOperator(t, c, ns, oo)
	eventually(t, 2*time.Minute, "BE released at the new image", func(ctx context.Context) (bool, error) {
		if err := get(ctx, c.Client, ns, "rs-be", be); err != nil {
			return false, err
		}
		p := be.Spec.UpdateStrategy.RollingUpdate
		return stsImage(be) == beTo && rolledOut(be) && be.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && p != nil && ptr.Deref(p.Partition, -1) == 0, nil
	})
	if below := f.TabletsBelow(3); below != 0 {
		t.Errorf("BE released while %d tablets had fewer than 3 healthy replicas", below)
	}
	// Each pod replaced once: the old one and one new one by name, never
	// a new one deleted again. (The Events cannot count the deletions: a
	// process stopped right after a delete may not have sent its Event.)
	for name, uid := range podUIDs(t, c, ns, "rs-be-") {
		if before[name] == uid {
			t.Errorf("%s was never replaced", name)
		}
	}
	if got := pw.incarnations("rs-be-"); len(got) != 3 || got["rs-be-0"] != 2 || got["rs-be-1"] != 2 || got["rs-be-2"] != 2 {
		t.Errorf("pods seen by name %v, want 2 each: the old one, and one at the new revision", got)
	}
}

func makeParallelClass(t *testing.T, c *testcluster.Cluster) {
	t.Helper()
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: parallelClass}, Provisioner: "example.com/none"}
	if err := c.Client.Create(context.Background(), class); err != nil {
		t.Fatal(err)
	}
}

// parallelCluster is gatedCluster with FE's metadata and BE's storage on claims.
func parallelCluster(ns, name string, fes, bes int32) *srv1.StarRocksCluster {
	src := gatedCluster(ns, name, fes, bes)
	src.Spec.StarRocksFeSpec.StorageVolumes = []srv1.StorageVolume{{Name: "fe-meta", StorageClassName: ptr.To(parallelClass), StorageSize: "1Gi", MountPath: "/opt/starrocks/fe/meta"}}
	src.Spec.StarRocksBeSpec.StorageVolumes = []srv1.StorageVolume{{Name: "be-data", StorageClassName: ptr.To(parallelClass), StorageSize: "1Gi", MountPath: "/opt/starrocks/be/storage"}}
	return src
}

// podWatch follows the pods of a namespace through a watch, every change
// in order, and tells, per pod name prefix, whether a pod of the new image
// became Ready while one of the old image still ran (not terminating), and
// the most pods of the prefix that were down at once.
type podWatch struct {
	mu   sync.Mutex
	pods map[string]*corev1.Pod // by name: the latest seen
	// onFirstGone is called, once per prefix, when its first pod of
	// another image than to[prefix] is seen terminating.
	onFirstGone map[string]func()
	to          map[string]string
	replicas    map[string]int
	overlap     map[string]string // prefix: what was seen
	maxDown     map[string]int
	gone        map[string]bool
	// whole is true once every pod of the prefix was seen up: the watch
	// begins with one ADDED event per pod, which is no pod going down.
	whole map[string]bool
	// uids are the UIDs seen of each pod name.
	uids map[string]map[string]bool
}

func watchPods(t *testing.T, c *testcluster.Cluster, ns string) *podWatch {
	t.Helper()
	wc, err := client.NewWithWatch(c.Config, client.Options{Scheme: c.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(context.Background(), &corev1.PodList{}, client.InNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	pw := &podWatch{pods: map[string]*corev1.Pod{}, onFirstGone: map[string]func(){}, to: map[string]string{}, replicas: map[string]int{},
		overlap: map[string]string{}, maxDown: map[string]int{}, gone: map[string]bool{}, whole: map[string]bool{}, uids: map[string]map[string]bool{}}
	t.Cleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			pw.see(p, string(ev.Type) == "DELETED")
		}
	}()
	return pw
}

// follow starts following the replicas pods named prefix rolling to image.
func (pw *podWatch) follow(prefix, image string, replicas int, onFirstGone func()) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	pw.to[prefix], pw.replicas[prefix], pw.onFirstGone[prefix] = image, replicas, onFirstGone
}

func (pw *podWatch) see(p *corev1.Pod, deleted bool) {
	pw.mu.Lock()
	if pw.uids[p.Name] == nil {
		pw.uids[p.Name] = map[string]bool{}
	}
	pw.uids[p.Name][string(p.UID)] = true
	if deleted {
		delete(pw.pods, p.Name)
	} else {
		pw.pods[p.Name] = p
	}
	var call []func()
	for prefix, to := range pw.to {
		if !strings.HasPrefix(p.Name, prefix) {
			continue
		}
		var running, newReady []string
		up := 0 // a pod missing, terminating or not Ready is down
		for name, q := range pw.pods {
			if !strings.HasPrefix(name, prefix) {
				continue
			}
			img := q.Spec.Containers[0].Image
			switch {
			case img != to && q.DeletionTimestamp == nil:
				running = append(running, name)
			case img == to && q.DeletionTimestamp == nil && podIsReady(q):
				newReady = append(newReady, name)
			}
			if q.DeletionTimestamp == nil && podIsReady(q) {
				up++
			}
		}
		if len(running) > 0 && len(newReady) > 0 && pw.overlap[prefix] == "" {
			slices.Sort(running)
			slices.Sort(newReady)
			pw.overlap[prefix] = strings.Join(newReady, ",") + " Ready at the new image while " + strings.Join(running, ",") + " ran the old one"
		}
		if up == pw.replicas[prefix] {
			pw.whole[prefix] = true
		}
		if pw.whole[prefix] {
			pw.maxDown[prefix] = max(pw.maxDown[prefix], pw.replicas[prefix]-up)
		}
		if !pw.gone[prefix] && (deleted || p.DeletionTimestamp != nil) && p.Spec.Containers[0].Image != to {
			pw.gone[prefix] = true
			if f := pw.onFirstGone[prefix]; f != nil {
				call = append(call, f)
			}
		}
	}
	pw.mu.Unlock()
	for _, f := range call {
		f()
	}
}

// incarnations is how many pods of each name the watch saw.
func (pw *podWatch) incarnations(prefix string) map[string]int {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	out := map[string]int{}
	for name, uids := range pw.uids {
		if strings.HasPrefix(name, prefix) {
			out[name] = len(uids)
		}
	}
	return out
}

func (pw *podWatch) result(prefix string) (overlap string, maxDown int) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	return pw.overlap[prefix], pw.maxDown[prefix]
}

// waitImageRolledOut waits until the StatefulSet runs image on every pod
// and its rollout is complete.
func waitImageRolledOut(t *testing.T, c *testcluster.Cluster, ns, name, image string, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, name+" rolled out to "+image, func(ctx context.Context) (bool, error) {
		sts := &appsv1.StatefulSet{}
		if err := get(ctx, c.Client, ns, name, sts); err != nil {
			return false, err
		}
		return stsImage(sts) == image && rolledOut(sts), nil
	})
}

// clusterEvents are the Events of reason on the cluster named name.
func clusterEvents(t *testing.T, c *testcluster.Cluster, ns, name, reason string) []eventsv1.Event {
	t.Helper()
	var evs eventsv1.EventList
	if err := c.Client.List(context.Background(), &evs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(evs.Items, func(e eventsv1.Event) bool { return e.Regarding.Name != name || e.Reason != reason })
}

func testParallelUpgrade(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	const feTo, beTo = "starrocks/fe-ubuntu:3.3.3", "starrocks/be-ubuntu:3.3.3"
	src := parallelCluster("par", "up", 3, 3)
	f := startGated(t, c, dir, src, simstarrocks.Options{CatchUp: catchUp}, 30)
	pw := watchPods(t, c, "par")
	// What StarRocks said when the first FE pod went: FE must have counted
	// every tablet healthy on the new BEs first (the gate between components).
	var mu sync.Mutex
	var atFE string
	pw.follow("up-be-", beTo, 3, nil)
	pw.follow("up-fe-", feTo, 3, func() {
		below := f.TabletsBelow(3)
		alive := aliveBEs(f)
		mu.Lock()
		defer mu.Unlock()
		if below > 0 || alive != 3 {
			atFE = fmt.Sprintf("the first FE pod went while FE counted %d tablets below 3 healthy replicas and %d of 3 BEs Alive", below, alive)
		}
	})
	start := time.Now()
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Annotations = map[string]string{srv1.RolloutAnnotation: srv1.RolloutParallel, srv1.RolloutImageAnnotation: beTo + "," + feTo}
		s.Spec.StarRocksBeSpec.Image = beTo
		s.Spec.StarRocksFeSpec.Image = feTo
	})
	waitImageRolledOut(t, c, "par", "up-be", beTo, 2*time.Minute)
	waitImageRolledOut(t, c, "par", "up-fe", feTo, 2*time.Minute)
	t.Logf("3 BEs then 3 FEs replaced all at once in %s", time.Since(start).Round(100*time.Millisecond))
	for _, prefix := range []string{"up-be-", "up-fe-"} {
		overlap, down := pw.result(prefix)
		if overlap != "" {
			t.Errorf("%s not all at once: %s", prefix, overlap)
		}
		if down != 3 {
			t.Errorf("%s: at most %d pods down at once, want all 3", prefix, down)
		}
	}
	mu.Lock()
	if atFE != "" {
		t.Error(atFE)
	}
	mu.Unlock()
	// One deletion per pod: one Event per component, naming all three.
	var notes []string
	for _, e := range clusterEvents(t, c, "par", "up", srv1.ReasonParallelRollout) {
		notes = append(notes, e.Note)
	}
	slices.Sort(notes)
	if len(notes) != 2 || !strings.Contains(notes[0], "deleted 3 BE pods") || !strings.Contains(notes[1], "deleted 3 FE pods") {
		t.Errorf("%s Events %q, want one per component, each deleting 3 pods", srv1.ReasonParallelRollout, notes)
	}
	// The StatefulSet controller marks an OnDelete rollout complete once
	// every pod is Ready; the strategy comes back once StarRocks said so.
	for _, name := range []string{"up-be", "up-fe"} {
		eventually(t, time.Minute, name+" back at the spec's strategy", func(ctx context.Context) (bool, error) {
			sts := &appsv1.StatefulSet{}
			if err := get(ctx, c.Client, "par", name, sts); err != nil {
				return false, err
			}
			p := sts.Spec.UpdateStrategy.RollingUpdate
			return sts.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && p != nil && ptr.Deref(p.Partition, -1) == 0, nil
		})
	}
	if err := c.Client.Delete(context.Background(), src); err != nil {
		t.Fatal(err)
	}
}

// testGatedDespiteAsk changes src's BE image to beTo with the annotations
// given, and checks it rolls one pod at a time and says why in a Warning
// Event and in Progressing.
func testGatedDespiteAsk(t *testing.T, c *testcluster.Cluster, dir *feDirectory, src *srv1.StarRocksCluster, annotations map[string]string, says string) {
	const beTo = "starrocks/be-ubuntu:3.3.3"
	startGated(t, c, dir, src, simstarrocks.Options{CatchUp: catchUp}, 30)
	pw := watchPods(t, c, "par")
	pw.follow(src.Name+"-be-", beTo, 3, nil)
	mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
		s.Annotations = annotations
		s.Spec.StarRocksBeSpec.Image = beTo
	})
	saw := ""
	eventually(t, 2*time.Minute, "BE rolled out", func(ctx context.Context) (bool, error) {
		if cond := progressing(t, c, "par", src.Name); strings.Contains(cond.Message, says) {
			saw = cond.Message
		}
		sts := &appsv1.StatefulSet{}
		if err := get(ctx, c.Client, "par", src.Name+"-be", sts); err != nil {
			return false, err
		}
		return stsImage(sts) == beTo && rolledOut(sts), nil
	})
	if _, down := pw.result(src.Name + "-be-"); down != 1 {
		t.Errorf("at most %d BE pods down at once, want 1: one at a time", down)
	}
	if saw == "" {
		t.Errorf("Progressing never said %q", says)
	}
	evs := clusterEvents(t, c, "par", src.Name, srv1.ReasonParallelRolloutDeclined)
	if len(evs) != 1 || evs[0].Type != corev1.EventTypeWarning || !strings.Contains(evs[0].Note, says) {
		t.Errorf("%s Events %+v, want one Warning saying %q", srv1.ReasonParallelRolloutDeclined, evs, says)
	}
	if len(clusterEvents(t, c, "par", src.Name, srv1.ReasonParallelRollout)) != 0 {
		t.Errorf("a %s Event, for a rollout the confirmation did not allow", srv1.ReasonParallelRollout)
	}
	if err := c.Client.Delete(context.Background(), src); err != nil {
		t.Fatal(err)
	}
}

func testStaleConfirmation(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	// The confirmation of an earlier change, to 3.3.2, left on the cluster.
	testGatedDespiteAsk(t, c, dir, parallelCluster("par", "stale", 1, 3),
		map[string]string{srv1.RolloutAnnotation: srv1.RolloutParallel, srv1.RolloutImageAnnotation: "starrocks/be-ubuntu:3.3.2"},
		"is not confirmed for BE's change to starrocks/be-ubuntu:3.3.3")
}

func testEmptyDirRefused(t *testing.T, c *testcluster.Cluster, dir *feDirectory) {
	testGatedDespiteAsk(t, c, dir, gatedCluster("par", "scratch", 1, 3),
		map[string]string{srv1.RolloutAnnotation: srv1.RolloutParallel, srv1.RolloutImageAnnotation: "starrocks/be-ubuntu:3.3.3"},
		"/opt/starrocks/be/storage is not on a PersistentVolumeClaim")
}

// TestParallelRolloutBench measures a BE image change on 10 BEs, gated and
// in parallel, on the simulated cluster (docs/rollouts.md gives the
// numbers). Behind SRSCALE_PARALLEL_BENCH=1: a few minutes, never in make test.
func TestParallelRolloutBench(t *testing.T) {
	if os.Getenv("SRSCALE_PARALLEL_BENCH") == "" {
		t.Skip("a measurement of a few minutes: set SRSCALE_PARALLEL_BENCH=1 to run it")
	}
	c, dir := simulatedWithStarRocks(t)
	testutil.CreateNamespace(t, c.Client, "par")
	makeParallelClass(t, c)
	startOperator(t, c, "par", operatorOptions{workers: 4, fe: dir.resolve, feLookEvery: gateLookEvery})
	const bes, tablets, beTo = 10, 30, "starrocks/be-ubuntu:3.3.3"
	for _, mode := range []string{"gated", "parallel"} {
		src := parallelCluster("par", mode, 1, bes)
		f := startGated(t, c, dir, src, simstarrocks.Options{CatchUp: catchUp}, tablets)
		start := time.Now()
		mutate(t, c.Client, src, func(s *srv1.StarRocksCluster) {
			if mode == "parallel" {
				s.Annotations = map[string]string{srv1.RolloutAnnotation: srv1.RolloutParallel, srv1.RolloutImageAnnotation: beTo}
			}
			s.Spec.StarRocksBeSpec.Image = beTo
		})
		// Sampled every 50 ms: when the StatefulSet controller called the
		// rollout complete, when the gate let it go (the spec's strategy
		// back: the next component may roll), how long some tablet had no
		// healthy replica (no query could read it), and the most such tablets.
		var complete, released time.Duration
		var unreadable time.Duration
		worst := 0
		last := time.Now()
		deadline := start.Add(10 * time.Minute)
		for released == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%s: BE not released after 10 minutes", mode)
			}
			time.Sleep(50 * time.Millisecond)
			now := time.Now()
			if below := f.TabletsBelow(1); below > 0 {
				worst = max(worst, below)
				unreadable += now.Sub(last)
			}
			last = now
			sts := &appsv1.StatefulSet{}
			if err := get(context.Background(), c.Client, "par", mode+"-be", sts); err != nil {
				t.Fatal(err)
			}
			done := stsImage(sts) == beTo && rolledOut(sts)
			if done && complete == 0 {
				complete = now.Sub(start)
			}
			if p := sts.Spec.UpdateStrategy.RollingUpdate; done && sts.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && p != nil && ptr.Deref(p.Partition, -1) == 0 {
				released = now.Sub(start)
			}
		}
		t.Logf("%s: %d BEs, %d tablets × 3 replicas, %s catch-up, FE read every %s: StatefulSet complete in %s, gate released (the next component may roll) in %s; tablets without a healthy replica for %s, at worst %d of %d",
			mode, bes, tablets, catchUp, gateLookEvery, complete.Round(100*time.Millisecond), released.Round(100*time.Millisecond), unreadable.Round(100*time.Millisecond), worst, tablets)
		if err := c.Client.Delete(context.Background(), src); err != nil {
			t.Fatal(err)
		}
	}
}
