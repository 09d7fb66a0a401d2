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

package testcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// The kube-controller-manager controllers a simulated cluster needs. The
// node-lifecycle controller is not optional: the TaintNodesByCondition
// admission plugin taints every new node and only it removes the taint. The
// disruption controller computes what PodDisruptionBudgets allow, which the
// eviction API enforces: without it every eviction a budget covers is refused.
var controllers = strings.Join([]string{
	"statefulset-controller", "deployment-controller", "replicaset-controller",
	"endpoints-controller", "endpointslice-controller", "garbage-collector-controller",
	"serviceaccount-controller", "namespace-controller", "node-lifecycle-controller",
	"pod-garbage-collector-controller", "persistentvolume-binder-controller",
	"persistentvolumeclaim-protection-controller", "persistentvolume-protection-controller",
	"disruption-controller",
}, ",")

// kwok's stock pod-delete stage deletes by name and reacts twice to one
// deletion, which can kill a StatefulSet's replacement pod of the same name;
// this one only acts on a graceful deletion.
const podDeleteStage = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'Exists'
    - key: '.metadata.deletionGracePeriodSeconds > 0'
      operator: 'In'
      values: ['true']
  next:
    delete: true
`

// kwok's own stage files, read from its module: nodes become Ready and keep a
// lease, pods become Running and Ready (readiness probes are not run).
var kwokStageFiles = []string{
	"kustomize/stage/node/fast/node-initialize.yaml",
	"kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
	"kustomize/stage/pod/fast/pod-ready.yaml",
	"kustomize/stage/pod/fast/pod-complete.yaml",
}

type process struct {
	name string
	cmd  *exec.Cmd
	done chan error
}

func (c *Cluster) startSimulated(ctx context.Context, assets Assets, opts Options) error {
	kubeconfig, err := c.WriteKubeconfig("simulated-cluster-admin", "system:masters")
	if err != nil {
		return err
	}
	apiServer := c.env.ControlPlane.GetAPIServer()
	caFile := filepath.Join(c.Dir, "ca.crt")
	if err := os.WriteFile(caFile, apiServer.SecureServing.CA, 0o600); err != nil {
		return err
	}
	saKey := filepath.Join(apiServer.CertDir, "sa-signer.key")

	stages, err := writeKwokStages(ctx, c.Dir)
	if err != nil {
		return err
	}
	schedulerConfig := filepath.Join(c.Dir, "scheduler.yaml")
	if err := os.WriteFile(schedulerConfig, []byte(fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: %q, qps: 5000, burst: 10000}
leaderElection: {leaderElect: false}
`, kubeconfig)), 0o600); err != nil {
		return err
	}

	starts := []struct {
		name string
		args []string
	}{
		{"kube-controller-manager", []string{
			"--kubeconfig=" + kubeconfig, "--authentication-kubeconfig=" + kubeconfig, "--authorization-kubeconfig=" + kubeconfig,
			"--bind-address=127.0.0.1", "--secure-port=0", "--leader-elect=false", "--use-service-account-credentials=false",
			"--root-ca-file=" + caFile, "--service-account-private-key-file=" + saKey,
			"--kube-api-qps=5000", "--kube-api-burst=10000", "--concurrent-statefulset-syncs=20",
			"--controllers=" + controllers,
		}},
		{"kube-scheduler", []string{
			"--config=" + schedulerConfig, "--authentication-kubeconfig=" + kubeconfig, "--authorization-kubeconfig=" + kubeconfig,
			"--bind-address=127.0.0.1", "--secure-port=0",
		}},
		{"kwok", []string{
			"--kubeconfig=" + kubeconfig, "--config=" + stages, "--manage-all-nodes=false",
			"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake", "--node-lease-duration-seconds=40",
			"--cidr=10.0.0.1/16", "--node-ip=10.255.0.1",
		}},
	}
	for _, s := range starts {
		p, err := c.spawn(s.name, assets.Path(s.name), s.args, opts.Output)
		if err != nil {
			return err
		}
		c.procs = append(c.procs, p)
	}
	nodes := opts.Nodes
	if nodes <= 0 {
		nodes = 1
	}
	for i := range nodes {
		if err := c.Client.Create(ctx, fakeNode(fmt.Sprintf("kwok-node-%d", i))); err != nil {
			return fmt.Errorf("creating fake node: %w", err)
		}
	}
	if err := c.waitNodesReady(ctx, nodes); err != nil {
		return err
	}
	provisionerCtx, cancel := context.WithCancel(context.Background())
	c.stopProvisioner = cancel
	go c.provisionVolumes(provisionerCtx)
	return nil
}

func (c *Cluster) spawn(name, path string, args []string, out io.Writer) (*process, error) {
	logFile, err := os.Create(filepath.Join(c.Dir, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if out != nil {
		w := io.MultiWriter(logFile, out)
		cmd.Stdout, cmd.Stderr = w, w
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); logFile.Close() }()
	return p, nil
}

// stop sends SIGTERM to the process group, then SIGKILL after 30 s.
func (p *process) stop() error {
	select {
	case err := <-p.done:
		return fmt.Errorf("%s had already exited: %w", p.name, err)
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		return fmt.Errorf("%s did not stop within 30s of SIGTERM", p.name)
	}
}

func writeKwokStages(ctx context.Context, dir string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	// The module is in the cache after kwok was built; download prints where.
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", "sigs.k8s.io/kwok")
	cmd.Dir = filepath.Join(root, "tools", "kwok")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("locating the kwok module for its stage files: %w", err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("locating the kwok module: %w (%s)", err, out)
	}
	var docs []string
	for _, f := range kwokStageFiles {
		b, err := os.ReadFile(filepath.Join(mod.Dir, f))
		if err != nil {
			return "", err
		}
		docs = append(docs, strings.TrimSpace(string(b)))
	}
	docs = append(docs, strings.TrimSpace(podDeleteStage))
	path := filepath.Join(dir, "kwok-stages.yaml")
	return path, os.WriteFile(path, []byte(strings.Join(docs, "\n---\n")+"\n"), 0o600)
}

func fakeNode(name string) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("1000"),
		corev1.ResourceMemory: resource.MustParse("4Ti"),
		corev1.ResourcePods:   resource.MustParse("10000"),
	}
	// No NoSchedule taint: the operator's pods carry no toleration for it.
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
			Labels:      map[string]string{"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "type": "kwok"},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

func (c *Cluster) waitNodesReady(ctx context.Context, n int) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, p := range c.procs {
			select {
			case err := <-p.done:
				p.done <- err
				return false, fmt.Errorf("%s exited: %w; log in %s", p.name, err, filepath.Join(c.Dir, p.name+".log"))
			default:
			}
		}
		var nodes corev1.NodeList
		if err := c.Client.List(ctx, &nodes); err != nil {
			return false, nil
		}
		ready := 0
		for _, node := range nodes.Items {
			if len(node.Spec.Taints) > 0 {
				continue
			}
			for _, cond := range node.Status.Conditions {
				if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		return ready >= n, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for %d fake nodes to become Ready and untainted: %w", n, err)
	}
	return nil
}

// provisionVolumes stands in for a storage provisioner: every pending claim
// gets a hostPath PersistentVolume bound to it, so pods with volume claim
// templates can be scheduled.
func (c *Cluster) provisionVolumes(ctx context.Context) {
	for ctx.Err() == nil {
		var claims corev1.PersistentVolumeClaimList
		if err := c.Client.List(ctx, &claims); err == nil {
			for i := range claims.Items {
				pvc := &claims.Items[i]
				if pvc.Spec.VolumeName != "" || pvc.DeletionTimestamp != nil {
					continue
				}
				if err := c.Client.Create(ctx, volumeFor(pvc)); err != nil && !apierrors.IsAlreadyExists(err) && ctx.Err() == nil {
					fmt.Fprintf(os.Stderr, "testcluster: provisioning a volume for %s/%s: %v\n", pvc.Namespace, pvc.Name, err)
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func volumeFor(pvc *corev1.PersistentVolumeClaim) *corev1.PersistentVolume {
	size := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if size.IsZero() {
		size = resource.MustParse("1Gi")
	}
	modes := pvc.Spec.AccessModes
	if len(modes) == 0 {
		modes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	}
	class := ""
	if pvc.Spec.StorageClassName != nil {
		class = *pvc.Spec.StorageClassName
	}
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-" + string(pvc.UID)},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: size},
			AccessModes:                   modes,
			StorageClassName:              class,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			ClaimRef:                      &corev1.ObjectReference{Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID},
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/kwok-volumes/" + string(pvc.UID)}},
		},
	}
}

func (c *Cluster) stopSimulated() error {
	if c.stopProvisioner != nil {
		c.stopProvisioner()
	}
	var errs []error
	for i := len(c.procs) - 1; i >= 0; i-- {
		errs = append(errs, c.procs[i].stop())
	}
	c.procs = nil
	return errors.Join(errs...)
}
