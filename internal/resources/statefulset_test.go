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

package resources

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	v1 "github.com/srscale/starrocks-operator/api/v1"
)

// componentSpec is the shared spec of FE, BE or CN in src.
func componentSpec(src *v1.StarRocksCluster, c Component) *v1.StarRocksComponentSpec {
	switch c {
	case ComponentFE:
		return &src.Spec.StarRocksFeSpec.StarRocksComponentSpec
	case ComponentBE:
		return &src.Spec.StarRocksBeSpec.StarRocksComponentSpec
	case ComponentCN:
		return &src.Spec.StarRocksCnSpec.StarRocksComponentSpec
	}
	panic("no component spec for " + c)
}

func TestStatefulSetDefaults(t *testing.T) {
	for _, c := range []Component{ComponentFE, ComponentBE, ComponentCN} {
		t.Run(string(c), func(t *testing.T) {
			s := sts(t, newCluster(), c, Config{})
			checks := []struct {
				what      string
				got, want any
			}{
				{"replicas", s.Spec.Replicas, ptr.To(int32(1))},
				{"podManagementPolicy", s.Spec.PodManagementPolicy, appsv1.ParallelPodManagement},
				{"updateStrategy", s.Spec.UpdateStrategy, appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}},
				{"selector", s.Spec.Selector.MatchLabels, SelectorLabels(newCluster(), c)},
				{"template labels", s.Spec.Template.Labels, Labels(newCluster(), c)},
				{"template annotations", s.Spec.Template.Annotations, map[string]string(nil)},
				{"terminationGracePeriodSeconds", s.Spec.Template.Spec.TerminationGracePeriodSeconds, ptr.To(int64(120))},
				{"pod securityContext", s.Spec.Template.Spec.SecurityContext, (*corev1.PodSecurityContext)(nil)},
				{"serviceAccountName", s.Spec.Template.Spec.ServiceAccountName, ""},
				{"containers", len(s.Spec.Template.Spec.Containers), 1},
				{"container name", mainOf(s).Name, string(c)},
				{"image", mainOf(s).Image, "starrocks/" + string(c) + "-ubuntu:latest"},
				{"command", mainOf(s).Command, []string{"/opt/starrocks/" + string(c) + "_entrypoint.sh"}},
				{"args", mainOf(s).Args, []string{"$(FE_SERVICE_NAME)"}},
				{"preStop", mainOf(s).Lifecycle, &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/opt/starrocks/" + string(c) + "_prestop.sh"}}}}},
				{"container securityContext", mainOf(s).SecurityContext, (*corev1.SecurityContext)(nil)},
				{"volume claim templates", len(s.Spec.VolumeClaimTemplates), 0},
			}
			for _, ch := range checks {
				if !reflect.DeepEqual(ch.got, ch.want) {
					t.Errorf("%s: got %#v, want %#v", ch.what, ch.got, ch.want)
				}
			}
		})
	}
}

func TestStatefulSetPassesSpecThrough(t *testing.T) {
	affinity := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"ssd"}}}}},
	}}}
	resources := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")},
	}
	update := &appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	retention := &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType}
	sidecar := corev1.Container{Name: "log-shipper", Image: "fluent-bit:3"}
	initC := corev1.Container{Name: "sysctl", Image: "busybox"}

	src := newCluster()
	src.Spec.ServiceAccount = "cluster-sa"
	spec := componentSpec(src, ComponentBE)
	spec.Replicas = ptr.To(int32(5))
	spec.Image = "starrocks/be-ubuntu:3.3.0"
	spec.ImagePullPolicy = corev1.PullAlways
	spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	spec.ResourceRequirements = resources
	spec.SchedulerName = "volcano"
	spec.NodeSelector = map[string]string{"pool": "olap"}
	spec.Affinity = affinity
	spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
	spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule}}
	spec.HostAliases = []corev1.HostAlias{{IP: "10.0.0.1", Hostnames: []string{"hdfs"}}}
	spec.ShareProcessNamespace = ptr.To(true)
	spec.InitContainers = []corev1.Container{initC}
	spec.Sidecars = []corev1.Container{sidecar}
	spec.UpdateStrategy = update
	spec.PersistentVolumeClaimRetentionPolicy = retention
	spec.MinReadySeconds = ptr.To(int32(10))
	spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	spec.TerminationGracePeriodSeconds = ptr.To(int64(600))
	spec.PodLabels = map[string]string{"team": "olap"}
	spec.Annotations = map[string]string{"a": "b"}
	spec.Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}

	s := sts(t, src, ComponentBE, Config{})
	pod := s.Spec.Template.Spec
	checks := []struct {
		what      string
		got, want any
	}{
		{"replicas", s.Spec.Replicas, ptr.To(int32(5))},
		{"image", mainOf(s).Image, "starrocks/be-ubuntu:3.3.0"},
		{"imagePullPolicy", mainOf(s).ImagePullPolicy, corev1.PullAlways},
		{"imagePullSecrets", pod.ImagePullSecrets, []corev1.LocalObjectReference{{Name: "regcred"}}},
		{"resources", mainOf(s).Resources, resources},
		{"schedulerName", pod.SchedulerName, "volcano"},
		{"nodeSelector", pod.NodeSelector, map[string]string{"pool": "olap"}},
		{"affinity", pod.Affinity, affinity},
		{"tolerations", pod.Tolerations, spec.Tolerations},
		{"topologySpreadConstraints", pod.TopologySpreadConstraints, spec.TopologySpreadConstraints},
		{"hostAliases", pod.HostAliases, spec.HostAliases},
		{"shareProcessNamespace", pod.ShareProcessNamespace, ptr.To(true)},
		{"initContainers", pod.InitContainers, []corev1.Container{initC}},
		{"sidecars follow the main container", pod.Containers[1:], []corev1.Container{sidecar}},
		{"updateStrategy", s.Spec.UpdateStrategy, *update},
		{"retention", s.Spec.PersistentVolumeClaimRetentionPolicy, retention},
		{"minReadySeconds", s.Spec.MinReadySeconds, int32(10)},
		{"podManagementPolicy", s.Spec.PodManagementPolicy, appsv1.OrderedReadyPodManagement},
		{"terminationGracePeriodSeconds", pod.TerminationGracePeriodSeconds, ptr.To(int64(600))},
		{"the cluster's service account is the fallback", pod.ServiceAccountName, "cluster-sa"},
		{"pod label", s.Spec.Template.Labels["team"], "olap"},
		{"pod annotations", s.Spec.Template.Annotations, map[string]string{"a": "b"}},
		{"a user lifecycle replaces the default preStop", mainOf(s).Lifecycle, spec.Lifecycle},
	}
	for _, ch := range checks {
		if !equality.Semantic.DeepEqual(ch.got, ch.want) {
			t.Errorf("%s: got %#v, want %#v", ch.what, ch.got, ch.want)
		}
	}

	spec.ServiceAccount = "be-sa"
	if got := sts(t, src, ComponentBE, Config{}).Spec.Template.Spec.ServiceAccountName; got != "be-sa" {
		t.Errorf("the component's service account wins, got %q", got)
	}
}

func TestCommandAndArgs(t *testing.T) {
	tests := []struct {
		name        string
		command     []string
		args        []string
		wantCommand []string
		wantArgs    []string
	}{
		{"default entrypoint gets the FE Service", nil, nil, []string{"/opt/starrocks/cn_entrypoint.sh"}, []string{"$(FE_SERVICE_NAME)"}},
		{"user args replace the default argument", nil, []string{"--debug"}, []string{"/opt/starrocks/cn_entrypoint.sh"}, []string{"--debug"}},
		{"user command drops the default argument", []string{"/bin/sh", "-c", "sleep 1"}, nil, []string{"/bin/sh", "-c", "sleep 1"}, nil},
		{"user command and args are both kept", []string{"/start.sh"}, []string{"a"}, []string{"/start.sh"}, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newCluster()
			src.Spec.StarRocksCnSpec.Command, src.Spec.StarRocksCnSpec.Args = tt.command, tt.args
			c := mainOf(sts(t, src, ComponentCN, Config{}))
			if !reflect.DeepEqual(c.Command, tt.wantCommand) || !reflect.DeepEqual(c.Args, tt.wantArgs) {
				t.Errorf("command %q args %q", c.Command, c.Args)
			}
		})
	}
}

func TestEnv(t *testing.T) {
	names := func(env []corev1.EnvVar) []string {
		var out []string
		for _, e := range env {
			out = append(out, e.Name)
		}
		return out
	}
	ours := []string{"POD_NAME", "POD_IP", "HOST_IP", "POD_NAMESPACE", "COMPONENT_NAME", "FE_SERVICE_NAME",
		"FE_QUERY_PORT", "HOST_TYPE", "USER", "CONFIGMAP_MOUNT_PATH"}

	t.Run("operator variables come first with the upstream values", func(t *testing.T) {
		c := mainOf(sts(t, newCluster(), ComponentBE, Config{}))
		if !reflect.DeepEqual(names(c.Env), ours) {
			t.Errorf("env %v", names(c.Env))
		}
		want := map[string]string{
			"COMPONENT_NAME": "be", "FE_SERVICE_NAME": "sr-fe-service.ns", "FE_QUERY_PORT": "9030",
			"HOST_TYPE": "FQDN", "USER": "root", "CONFIGMAP_MOUNT_PATH": "/etc/starrocks/be/configmap",
		}
		for k, v := range want {
			if got, _ := envValue(c, k); got != v {
				t.Errorf("%s=%q, want %q", k, got, v)
			}
		}
		wantField := map[string]string{"POD_NAME": "metadata.name", "POD_IP": "status.podIP", "HOST_IP": "status.hostIP", "POD_NAMESPACE": "metadata.namespace"}
		for _, e := range c.Env {
			if fp, ok := wantField[e.Name]; ok && (e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != fp) {
				t.Errorf("%s: %+v", e.Name, e.ValueFrom)
			}
		}
	})
	t.Run("user env var overrides the operator's in place", func(t *testing.T) {
		src := newCluster()
		src.Spec.StarRocksFeSpec.FeEnvVars = []corev1.EnvVar{
			{Name: "TZ", Value: "UTC"},
			{Name: "USER", Value: "starrocks"},
			{Name: "JAVA_OPTS", Value: "-Xmx4g"},
		}
		c := mainOf(sts(t, src, ComponentFE, Config{}))
		if want := append(append([]string{}, ours...), "TZ", "JAVA_OPTS"); !reflect.DeepEqual(names(c.Env), want) {
			t.Errorf("env %v, want %v", names(c.Env), want)
		}
		if v, _ := envValue(c, "USER"); v != "starrocks" {
			t.Errorf("USER=%q", v)
		}
	})
	t.Run("a user variable set twice keeps its last value once", func(t *testing.T) {
		src := newCluster()
		src.Spec.StarRocksCnSpec.CnEnvVars = []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "x"}, {Name: "A", Value: "2"}}
		c := mainOf(sts(t, src, ComponentCN, Config{}))
		if want := append(append([]string{}, ours...), "A", "B"); !reflect.DeepEqual(names(c.Env), want) {
			t.Errorf("env %v", names(c.Env))
		}
		if v, _ := envValue(c, "A"); v != "2" {
			t.Errorf("A=%q", v)
		}
	})
}

func TestProbes(t *testing.T) {
	tests := []struct {
		name                         string
		startup, liveness, readiness *int32
		want                         [3]int32 // failure thresholds, 0 = no probe
	}{
		{"defaults are 300 s to start and 15 s to fail", nil, nil, nil, [3]int32{60, 3, 3}},
		{"custom seconds become whole periods, rounded up", ptr.To(int32(1200)), ptr.To(int32(31)), ptr.To(int32(1)), [3]int32{240, 7, 1}},
		{"0 disables a probe", ptr.To(int32(0)), ptr.To(int32(0)), ptr.To(int32(20)), [3]int32{0, 0, 4}},
	}
	for _, tt := range tests {
		for _, comp := range []Component{ComponentFE, ComponentBE, ComponentCN, ComponentFEProxy} {
			t.Run(tt.name+" ("+string(comp)+")", func(t *testing.T) {
				src := newCluster()
				var load *v1.StarRocksLoadSpec
				if comp == ComponentFEProxy {
					load = &src.Spec.StarRocksFeProxySpec.StarRocksLoadSpec
				} else {
					load = &componentSpec(src, comp).StarRocksLoadSpec
				}
				load.StartupProbeFailureSeconds, load.LivenessProbeFailureSeconds, load.ReadinessProbeFailureSeconds = tt.startup, tt.liveness, tt.readiness

				var c corev1.Container
				if comp == ComponentFEProxy {
					c = find[*appsv1.Deployment](t, FEProxy(src).Objects(), "sr-fe-proxy").Spec.Template.Spec.Containers[0]
				} else {
					c = mainOf(sts(t, src, comp, Config{}))
				}
				for i, p := range []*corev1.Probe{c.StartupProbe, c.LivenessProbe, c.ReadinessProbe} {
					if tt.want[i] == 0 {
						if p != nil {
							t.Errorf("probe %d should be disabled: %+v", i, p)
						}
						continue
					}
					if p == nil {
						t.Fatalf("probe %d missing", i)
					}
					if p.FailureThreshold != tt.want[i] || p.PeriodSeconds != 5 {
						t.Errorf("probe %d: failureThreshold %d period %d, want %d and 5", i, p.FailureThreshold, p.PeriodSeconds, tt.want[i])
					}
					switch comp {
					case ComponentFEProxy:
						if p.TCPSocket == nil || p.TCPSocket.Port.IntValue() != 8080 {
							t.Errorf("probe %d: %+v", i, p.ProbeHandler)
						}
					default:
						wantPort := map[Component]int{ComponentFE: 8030, ComponentBE: 8040, ComponentCN: 8040}[comp]
						if p.HTTPGet == nil || p.HTTPGet.Path != "/api/health" || p.HTTPGet.Port.IntValue() != wantPort {
							t.Errorf("probe %d: %+v", i, p.ProbeHandler)
						}
					}
				}
			})
		}
	}
}

func TestSecurityContexts(t *testing.T) {
	tests := []struct {
		name          string
		mutate        func(*v1.StarRocksComponentSpec)
		wantPod       *corev1.PodSecurityContext
		wantContainer *corev1.SecurityContext
	}{
		{"nothing set, nothing written", func(*v1.StarRocksComponentSpec) {}, nil, nil},
		{
			"sysctls go to the pod",
			func(s *v1.StarRocksComponentSpec) {
				s.Sysctls = []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}}
			},
			&corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}}},
			nil,
		},
		{
			"runAsNonRoot runs as the image's starrocks user and owns the volumes",
			func(s *v1.StarRocksComponentSpec) { s.RunAsNonRoot = ptr.To(true) },
			&corev1.PodSecurityContext{RunAsUser: ptr.To(int64(1000)), RunAsGroup: ptr.To(int64(1000)), FSGroup: ptr.To(int64(1000)),
				FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch)},
			&corev1.SecurityContext{RunAsNonRoot: ptr.To(true)},
		},
		{
			"runAsNonRoot false sets no user",
			func(s *v1.StarRocksComponentSpec) { s.RunAsNonRoot = ptr.To(false) },
			nil,
			&corev1.SecurityContext{RunAsNonRoot: ptr.To(false)},
		},
		{
			"capabilities and read-only root go to the main container",
			func(s *v1.StarRocksComponentSpec) {
				s.Capabilities = &corev1.Capabilities{Add: []corev1.Capability{"SYS_PTRACE"}}
				s.ReadOnlyRootFilesystem = ptr.To(true)
			},
			nil,
			&corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SYS_PTRACE"}}, ReadOnlyRootFilesystem: ptr.To(true)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newCluster()
			tt.mutate(componentSpec(src, ComponentFE))
			s := sts(t, src, ComponentFE, Config{})
			if !reflect.DeepEqual(s.Spec.Template.Spec.SecurityContext, tt.wantPod) {
				t.Errorf("pod: %+v", s.Spec.Template.Spec.SecurityContext)
			}
			if !reflect.DeepEqual(mainOf(s).SecurityContext, tt.wantContainer) {
				t.Errorf("container: %+v", mainOf(s).SecurityContext)
			}
		})
	}
}
