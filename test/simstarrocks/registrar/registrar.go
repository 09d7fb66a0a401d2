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

// Package registrar does on a simulated Kubernetes cluster what the StarRocks
// images' entrypoint scripts do on a real one: when a pod of a StarRocks
// cluster starts, it registers the node with that cluster's simulated
// StarRocks (ALTER SYSTEM ADD BACKEND / COMPUTE NODE / FOLLOWER over MySQL),
// starts the simulated FE, and makes each node Alive while its pod is Ready,
// as heartbeats would. kwok runs no containers, so without it no node would
// ever join.
//
// The rules come from /work/shared/reference/starrocks-fe-protocol.md (cited
// "sheet §N") and from StarRocks' docker/dockerfiles/fe/fe_entrypoint.sh
// @40dfa8b3, be/be_entrypoint.sh @ef298e09 and be/cn_entrypoint.sh @47bd0111.
package registrar

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// Directory maps a cluster (namespace, StarRocksCluster name) to its simulated
// StarRocks; nil: that cluster's pods are left alone. It is asked on every
// event of a pod, so a cluster may be added to it at any time.
type Directory func(namespace, cluster string) *simstarrocks.StarRocks

// Options tune a Registrar. The zero value behaves as the scripts do.
type Options struct {
	// DNSDomain is the cluster's DNS domain in `hostname -f` (default "cluster.local").
	DNSDomain string
	// CNSelfDrop runs cn_entrypoint.sh @47bd0111's SIGTERM trap: a terminating
	// CN pod drops its own compute node (sheet §12). Later scripts do not.
	CNSelfDrop bool
	// FEGracefulExit runs an FE pod's preStop hook when the pod terminates,
	// if it is `stop_fe.sh -g`: the simulated FE's graceful exit
	// (simstarrocks GracefulExit) instead of an FE that stops at once. The
	// replacement pod's container starts once the exit ended or the grace
	// period killed it, as on a kubelet. Off by default: every FE pod the
	// other tests roll would then take 15 s or more to go.
	FEGracefulExit bool
	// Pod0LeaderTimeout is fe_entrypoint.sh's PROBE_LEADER_POD0_TIMEOUT: how
	// long FE pod 0, seeing no member, looks for a leader before it starts as
	// the first FE (default 30 s, sheet §1 FE start logic 3). Tests may shorten it.
	Pod0LeaderTimeout time.Duration
}

func (o Options) dnsDomain() string {
	if o.DNSDomain == "" {
		return "cluster.local"
	}
	return o.DNSDomain
}

func (o Options) pod0LeaderTimeout() time.Duration {
	if o.Pod0LeaderTimeout <= 0 {
		return 30 * time.Second
	}
	return o.Pod0LeaderTimeout
}

// Statement is one statement a pod's script sent, with its outcome.
type Statement struct {
	// Pod is "<namespace>/<name>".
	Pod string
	// SQL is the statement as the script writes it.
	SQL string
	// Err is the error the client got, "" on success.
	Err string
	// At is when it was sent.
	At time.Time
}

// Registrar watches the pods of StarRocks clusters. Its methods are safe for
// concurrent use.
type Registrar struct {
	t    testing.TB
	kube kubernetes.Interface
	dir  Directory
	opts Options

	ctx      context.Context
	cancel   context.CancelFunc
	informer informers.SharedInformerFactory
	scripts  sync.WaitGroup
	stopOnce sync.Once

	mu      sync.Mutex
	stopped bool
	pods    map[types.NamespacedName]*podState
	// roles holds the metaKey of every FE whose meta/image/ROLE exists.
	roles map[string]bool
	// exits holds, by pod name, the end of a terminated container's SIGTERM
	// handler: kwok removes a pod at once, but on a kubelet the pod, and so the
	// StatefulSet's replacement of the same name, waits for its containers.
	exits map[types.NamespacedName]chan struct{}
	log   []string
	stmts []Statement
}

// podState is what the registrar knows of one pod (one UID).
type podState struct {
	uid       types.UID
	component resources.Component
	sim       *simstarrocks.StarRocks
	// start is podFacts.start of the container start whose script runs or ran;
	// gen counts starts, so that a script of an earlier start knows it is stale.
	start  string
	gen    int
	cancel context.CancelFunc
	// host is MY_SELF and password MYSQL_PWD of the current start, once its script read them.
	host, password string
	// running: the current start's script got to start_{fe,be,cn}.sh.
	running     bool
	ready       bool
	terminating bool
	// alive is the last Alive value the registrar gave the node, if aliveSet.
	alive, aliveSet bool
	// neverAlive: the node never answers heartbeats (NeverAliveAnnotation).
	neverAlive bool
	// gracefulFE: podFacts.gracefulFE.
	gracefulFE bool
	// crashes counts the container's exits (its back-off doubles with
	// each); crashed: the registrar made the pod not Ready, and makes it
	// Ready again when a start gets to its process.
	crashes int
	crashed bool
}

// Start watches pods in all namespaces until ctx is done or t ends. Start it
// before the pods: pods already running when it starts count as starting then.
func Start(ctx context.Context, t testing.TB, cfg *rest.Config, dir Directory, opts Options) *Registrar {
	t.Helper()
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("registrar: %v", err)
	}
	r := &Registrar{
		t: t, kube: kube, dir: dir, opts: opts,
		pods:  map[types.NamespacedName]*podState{},
		roles: map[string]bool{},
		exits: map[types.NamespacedName]chan struct{}{},
	}
	r.ctx, r.cancel = context.WithCancel(ctx)
	r.informer = informers.NewSharedInformerFactory(kube, 0)
	pods := r.informer.Core().V1().Pods().Informer()
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { r.observe(obj, false) },
		UpdateFunc: func(_, obj any) { r.observe(obj, false) },
		DeleteFunc: func(obj any) { r.observe(obj, true) },
	}); err != nil {
		t.Fatalf("registrar: %v", err)
	}
	r.informer.Start(r.ctx.Done())
	syncCtx, cancel := context.WithTimeout(r.ctx, time.Minute)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), pods.HasSynced) {
		r.Stop()
		t.Fatalf("registrar: the pod informer did not sync")
	}
	t.Cleanup(r.Stop)
	go func() {
		<-r.ctx.Done()
		r.Stop()
	}()
	return r
}

// Stop stops watching and waits for the scripts in flight to give up.
func (r *Registrar) Stop() {
	r.stopOnce.Do(func() {
		r.cancel()
		r.informer.Shutdown()
		r.mu.Lock()
		r.stopped = true
		r.mu.Unlock()
		r.scripts.Wait()
	})
}

// Log is what the registrar did, oldest first.
func (r *Registrar) Log() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

// Statements are the statements the scripts sent, oldest first.
func (r *Registrar) Statements() []Statement {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Statement(nil), r.stmts...)
}

// logf records an entry; the caller holds r.mu.
func (r *Registrar) logf(pod types.NamespacedName, format string, args ...any) {
	if r.stopped {
		return
	}
	entry := pod.String() + ": " + fmt.Sprintf(format, args...)
	r.log = append(r.log, entry)
	r.t.Logf("registrar: %s", entry)
}

// observe is the informer's handler: it never blocks on StarRocks or the API.
func (r *Registrar) observe(obj any, gone bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	f, ok := factsOf(pod)
	if !ok {
		return
	}
	sim := r.dir(pod.Namespace, f.cluster)
	if sim == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return
	}
	st := r.pods[f.key]
	if st != nil && st.uid != f.uid {
		if gone {
			return // a late deletion of an older pod
		}
		r.terminate(f.key, st, f.grace, "replaced by pod "+string(f.uid))
		st = nil
	}
	if st == nil {
		if gone {
			return
		}
		st = &podState{uid: f.uid, component: f.component, sim: sim}
		r.pods[f.key] = st
	}
	st.gracefulFE = f.gracefulFE
	switch {
	case gone:
		r.terminate(f.key, st, f.grace, "deleted")
		delete(r.pods, f.key)
		return
	case f.terminating:
		r.terminate(f.key, st, f.grace, "terminating")
		return
	}
	st.ready, st.neverAlive = f.ready, f.neverAlive
	if f.start != "" && f.start != st.start {
		r.startContainer(f, st, pod.DeepCopy())
	}
	r.syncAlive(f.key, st)
}

// startContainer runs the entrypoint of a new container start; the caller holds r.mu.
func (r *Registrar) startContainer(f podFacts, st *podState, pod *corev1.Pod) {
	if st.cancel != nil {
		st.cancel() // the previous container, and its script, are gone
	}
	st.start, st.running = f.start, false
	st.gen++
	gen := st.gen
	ctx, cancel := context.WithCancel(r.ctx)
	st.cancel = cancel
	r.logf(f.key, "container %s started (%s)", f.container.Name, f.start)
	previous := r.exits[f.key]
	r.scripts.Add(1)
	go func() {
		defer r.scripts.Done()
		defer cancel()
		if previous != nil {
			select {
			case <-previous:
			case <-ctx.Done():
				return
			}
		}
		s := &script{r: r, ctx: ctx, key: f.key, st: st, gen: gen, pod: pod, container: f.container}
		if !s.run(f.component) {
			return
		}
		r.mu.Lock()
		recovered := false
		if st.gen == gen && !st.terminating {
			st.running = true
			st.aliveSet = false // whatever starting the node did to Alive, readiness decides
			r.syncAlive(f.key, st)
			recovered, st.crashed = st.crashed, false
		}
		r.mu.Unlock()
		if recovered {
			// After a crash, the readiness probe passes again.
			r.patchStatus(f.key, f.uid, markReady)
		}
	}()
}

// terminate handles a pod that is going away; the caller holds r.mu.
func (r *Registrar) terminate(key types.NamespacedName, st *podState, grace time.Duration, why string) {
	if st.terminating {
		return
	}
	st.terminating = true
	r.logf(key, "%s", why)
	if st.cancel != nil {
		st.cancel() // SIGTERM: the scripts trap nothing while they register
	}
	wasRunning := st.running
	st.running = false
	if st.component == resources.ComponentFE && r.opts.FEGracefulExit && st.gracefulFE && wasRunning && st.host != "" {
		r.stopFEGracefully(key, st, grace)
	}
	r.syncAlive(key, st)
	// cn_entrypoint.sh @47bd0111 sets `trap exit_clean SIGTERM` after add_self
	// succeeded; exit_clean waits for the CN process, then drop_my_self (sheet §12).
	if st.component == resources.ComponentCN && r.opts.CNSelfDrop && wasRunning {
		host, password, sim := st.host, st.password, st.sim
		r.exiting(key, func() {
			// The kubelet kills the container when the grace period ends.
			ctx, cancel := context.WithTimeout(r.ctx, grace)
			defer cancel()
			dropCN(ctx, r, key, sim, host, password)
		})
	}
}

// exiting runs exit, what a terminating pod's process does until it ends,
// on its own goroutine, recorded in r.exits until it returns; the caller
// holds r.mu.
func (r *Registrar) exiting(key types.NamespacedName, exit func()) {
	exited := make(chan struct{})
	r.exits[key] = exited
	r.scripts.Add(1)
	go func() {
		defer r.scripts.Done()
		defer func() {
			close(exited)
			r.mu.Lock()
			if r.exits[key] == exited {
				delete(r.exits, key)
			}
			r.mu.Unlock()
		}()
		exit()
	}()
}

// stopFEGracefully runs the preStop hook `stop_fe.sh -g` of a terminating
// FE pod: SIGUSR1, then the kubelet waits for the process until the grace
// period ends, and kills it then (SIGKILL); the caller holds r.mu.
func (r *Registrar) stopFEGracefully(key types.NamespacedName, st *podState, grace time.Duration) {
	done, ok := st.sim.GracefulExit(st.host)
	if !ok {
		return
	}
	r.logf(key, "preStop: stop_fe.sh -g for %s", st.host)
	st.alive, st.aliveSet = false, true // the exit ends the process, not syncAlive
	host, sim := st.host, st.sim
	r.exiting(key, func() {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-done:
			r.mu.Lock()
			r.logf(key, "FE %s exited", host)
			r.mu.Unlock()
		case <-t.C:
			sim.StopFrontend(host)
			r.mu.Lock()
			r.logf(key, "FE %s killed at the end of its grace period", host)
			r.mu.Unlock()
		case <-r.ctx.Done():
		}
	})
}

// syncAlive runs the node's simulated process exactly while its pod is
// Ready and its script has started it; the caller holds r.mu. A BE or CN
// process starts and stops (gracefully when the pod terminates: SIGTERM),
// and FE's heartbeats find out as they would (sheet §14). An FE process
// stops the same way: FE lists it Alive until its heartbeats have failed
// (simstarrocks StopFrontend); its start is seen at once (SetAlive).
func (r *Registrar) syncAlive(key types.NamespacedName, st *podState) {
	want := st.ready && st.running && !st.terminating && !st.neverAlive
	if (st.aliveSet && want == st.alive) || st.host == "" {
		return
	}
	var found bool
	switch {
	case st.component == resources.ComponentFE && want:
		found = st.sim.SetAlive(st.host, true)
	case st.component == resources.ComponentFE:
		found = st.sim.StopFrontend(st.host)
	case want:
		found = st.sim.StartProcess(st.host)
	default:
		found = st.sim.StopProcess(st.host, st.terminating)
	}
	if !found {
		r.logf(key, "Alive=%t: no node %s", want, st.host)
		st.alive, st.aliveSet = false, !want // a node added later starts Alive=false (sheet §1)
		return
	}
	r.logf(key, "Alive=%t for %s", want, st.host)
	st.alive, st.aliveSet = want, true
}
