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

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// componentSpec is the shared spec of FE, BE or CN in src.
func componentSpec(src *srv1.StarRocksCluster, c Component) *srv1.StarRocksComponentSpec {
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
				{"updateStrategy", s.Spec.UpdateStrategy, appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
					RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To(int32(0))}}},
				{"selector", s.Spec.Selector.MatchLabels, SelectorLabels(newCluster(), c)},
				{"template labels are the selector's, as the upstream's", s.Spec.Template.Labels, SelectorLabels(newCluster(), c)},
				{"template namespace", s.Spec.Template.Namespace, "ns"},
				{"automountServiceAccountToken", s.Spec.Template.Spec.AutomountServiceAccountToken, ptr.To(false)},
				{"imagePullPolicy", mainOf(s).ImagePullPolicy, corev1.PullIfNotPresent},
				{"template annotations", s.Spec.Template.Annotations, map[string]string(nil)},
				{"terminationGracePeriodSeconds", s.Spec.Template.Spec.TerminationGracePeriodSeconds, ptr.To(int64(120))},
				{"pod securityContext", s.Spec.Template.Spec.SecurityContext, &corev1.PodSecurityContext{FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch)}},
				{"serviceAccountName", s.Spec.Template.Spec.ServiceAccountName, ""},
				{"containers", len(s.Spec.Template.Spec.Containers), 1},
				{"container name", mainOf(s).Name, string(c)},
				{"image", mainOf(s).Image, "starrocks/" + string(c) + "-ubuntu:latest"},
				{"command", mainOf(s).Command, []string{"/opt/starrocks/" + string(c) + "_entrypoint.sh"}},
				{"args", mainOf(s).Args, []string{"$(FE_SERVICE_NAME)"}},
				{"preStop", mainOf(s).Lifecycle, &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{
					Command: []string{"/bin/bash", "-c", "/opt/starrocks/" + string(c) + "/bin/stop_" + string(c) + ".sh -g"}}}}},
				{"container securityContext", mainOf(s).SecurityContext, &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(false)}},
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
		{"BE keeps its claims on scale-down: whenScaled is dropped", s.Spec.PersistentVolumeClaimRetentionPolicy,
			&appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType}},
		{"minReadySeconds", s.Spec.MinReadySeconds, int32(10)},
		{"podManagementPolicy", s.Spec.PodManagementPolicy, appsv1.OrderedReadyPodManagement},
		{"terminationGracePeriodSeconds", pod.TerminationGracePeriodSeconds, ptr.To(int64(600))},
		{"the cluster's service account is the fallback", pod.ServiceAccountName, "cluster-sa"},
		{"pod label", s.Spec.Template.Labels["team"], "olap"},
		{"pod annotations", s.Spec.Template.Annotations, map[string]string{"a": "b"}},
		{"a user postStart is kept beside the default preStop", mainOf(s).Lifecycle, &corev1.Lifecycle{PostStart: spec.Lifecycle.PostStart,
			PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/bash", "-c", "/opt/starrocks/be/bin/stop_be.sh -g"}}}}},
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
		{"user command keeps the default argument, as the upstream's", []string{"/bin/sh", "-c", "sleep 1"}, nil, []string{"/bin/sh", "-c", "sleep 1"}, []string{"$(FE_SERVICE_NAME)"}},
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
	ours := []string{"POD_NAME", "POD_IP", "HOST_IP", "POD_NAMESPACE", "HOST_TYPE", "COMPONENT_NAME", "FE_SERVICE_NAME", "FE_QUERY_PORT"}

	t.Run("operator variables in the upstream's order and values", func(t *testing.T) {
		c := mainOf(sts(t, newCluster(), ComponentBE, Config{}))
		if !reflect.DeepEqual(names(c.Env), ours) {
			t.Errorf("env %v", names(c.Env))
		}
		want := map[string]string{"COMPONENT_NAME": "be", "FE_SERVICE_NAME": "sr-fe-service", "FE_QUERY_PORT": "9030", "HOST_TYPE": "FQDN"}
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
	t.Run("FE gets the FE Service with its namespace and no query port", func(t *testing.T) {
		c := mainOf(sts(t, newCluster(), ComponentFE, Config{}))
		if v, _ := envValue(c, "FE_SERVICE_NAME"); v != "sr-fe-service.ns" {
			t.Errorf("FE_SERVICE_NAME=%q", v)
		}
		if _, ok := envValue(c, "FE_QUERY_PORT"); ok {
			t.Error("FE has FE_QUERY_PORT")
		}
	})
	t.Run("configMapInfo adds CONFIGMAP_MOUNT_PATH last", func(t *testing.T) {
		src := newCluster()
		src.Spec.StarRocksBeSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "be-cm", ResolveKey: "be.conf"}
		c := mainOf(sts(t, src, ComponentBE, Config{}))
		if want := append(append([]string{}, ours...), "CONFIGMAP_MOUNT_PATH"); !reflect.DeepEqual(names(c.Env), want) {
			t.Errorf("env %v", names(c.Env))
		}
		if v, _ := envValue(c, "CONFIGMAP_MOUNT_PATH"); v != "/etc/starrocks/be/conf" {
			t.Errorf("CONFIGMAP_MOUNT_PATH=%q", v)
		}
	})
	t.Run("user variables come first and replace the operator's", func(t *testing.T) {
		src := newCluster()
		src.Spec.StarRocksFeSpec.FeEnvVars = []corev1.EnvVar{
			{Name: "TZ", Value: "UTC"},
			{Name: "HOST_TYPE", Value: "IP"},
			{Name: "JAVA_OPTS", Value: "-Xmx4g"},
		}
		c := mainOf(sts(t, src, ComponentFE, Config{}))
		want := []string{"TZ", "HOST_TYPE", "JAVA_OPTS", "POD_NAME", "POD_IP", "HOST_IP", "POD_NAMESPACE", "COMPONENT_NAME", "FE_SERVICE_NAME"}
		if !reflect.DeepEqual(names(c.Env), want) {
			t.Errorf("env %v, want %v", names(c.Env), want)
		}
		if v, _ := envValue(c, "HOST_TYPE"); v != "IP" {
			t.Errorf("HOST_TYPE=%q", v)
		}
	})
	t.Run("a user variable set twice keeps its last value once", func(t *testing.T) {
		src := newCluster()
		src.Spec.StarRocksCnSpec.CnEnvVars = []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "x"}, {Name: "A", Value: "2"}}
		c := mainOf(sts(t, src, ComponentCN, Config{}))
		if want := append([]string{"A", "B"}, ours...); !reflect.DeepEqual(names(c.Env), want) {
			t.Errorf("env %v", names(c.Env))
		}
		if v, _ := envValue(c, "A"); v != "2" {
			t.Errorf("A=%q", v)
		}
	})
	t.Run("KUBE_STARROCKS_UNSUPPORTED_ENVS leaves variables out", func(t *testing.T) {
		c := mainOf(sts(t, newCluster(), ComponentBE, Config{Options: Options{UnsupportedEnvs: []string{"HOST_IP", "POD_IP"}}}))
		want := []string{"POD_NAME", "POD_NAMESPACE", "HOST_TYPE", "COMPONENT_NAME", "FE_SERVICE_NAME", "FE_QUERY_PORT"}
		if !reflect.DeepEqual(names(c.Env), want) {
			t.Errorf("env %v, want %v", names(c.Env), want)
		}
	})
}

func TestPreStopAndRoot(t *testing.T) {
	tests := []struct {
		name, image string
		env         []corev1.EnvVar
		wantPreStop []string
		wantCommand string
		wantDir     string
	}{
		{"a 3.x image stops gracefully with stop_be.sh -g", "starrocks/be-ubuntu:3.3.2", nil,
			[]string{"/bin/bash", "-c", "/opt/starrocks/be/bin/stop_be.sh -g"}, "/opt/starrocks/be_entrypoint.sh", ""},
		{"a 2.x image has only be_prestop.sh", "starrocks/be-ubuntu:2.5.21", nil,
			[]string{"/opt/starrocks/be_prestop.sh"}, "/opt/starrocks/be_entrypoint.sh", ""},
		{"a v-prefixed tag counts too", "registry:5000/sr/be:v2.5.0", nil,
			[]string{"/opt/starrocks/be_prestop.sh"}, "/opt/starrocks/be_entrypoint.sh", ""},
		{"a tag that is no version is taken as current", "starrocks/be-ubuntu:main", nil,
			[]string{"/bin/bash", "-c", "/opt/starrocks/be/bin/stop_be.sh -g"}, "/opt/starrocks/be_entrypoint.sh", ""},
		{"STARROCKS_ROOT moves the scripts and the working directory", "starrocks/be-ubuntu:3.3.2",
			[]corev1.EnvVar{{Name: "STARROCKS_ROOT", Value: "/data/sr"}},
			[]string{"/bin/bash", "-c", "/data/sr/be/bin/stop_be.sh -g"}, "/data/sr/be_entrypoint.sh", "/data/sr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newCluster()
			src.Spec.StarRocksBeSpec.Image = tt.image
			src.Spec.StarRocksBeSpec.BeEnvVars = tt.env
			c := mainOf(sts(t, src, ComponentBE, Config{}))
			if got := c.Lifecycle.PreStop.Exec.Command; !reflect.DeepEqual(got, tt.wantPreStop) {
				t.Errorf("preStop %q, want %q", got, tt.wantPreStop)
			}
			if !reflect.DeepEqual(c.Command, []string{tt.wantCommand}) || c.WorkingDir != tt.wantDir {
				t.Errorf("command %q workingDir %q", c.Command, c.WorkingDir)
			}
		})
	}
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
				var load *srv1.StarRocksLoadSpec
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
					want := tt.want[i]
					if comp == ComponentFEProxy && i == 0 && tt.startup == nil {
						want = 0 // the upstream's proxy has no startup probe unless asked
					}
					if want == 0 {
						if p != nil {
							t.Errorf("probe %d should be disabled: %+v", i, p)
						}
						continue
					}
					if p == nil {
						t.Fatalf("probe %d missing", i)
					}
					if p.FailureThreshold != want || p.PeriodSeconds != 5 {
						t.Errorf("probe %d: failureThreshold %d period %d, want %d and 5", i, p.FailureThreshold, p.PeriodSeconds, want)
					}
					switch comp {
					case ComponentFEProxy:
						if p.HTTPGet == nil || p.HTTPGet.Path != "/nginx/health" || p.HTTPGet.Port.IntValue() != 8080 {
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
	base := func() *corev1.SecurityContext {
		return &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(false)}
	}
	basePod := func() *corev1.PodSecurityContext {
		return &corev1.PodSecurityContext{FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch)}
	}
	tests := []struct {
		name          string
		mutate        func(*srv1.StarRocksComponentSpec)
		wantPod       func(*corev1.PodSecurityContext)
		wantContainer func(*corev1.SecurityContext)
	}{
		{"nothing set: no privilege escalation, writable root, as the upstream", func(*srv1.StarRocksComponentSpec) {}, nil, nil},
		{
			"sysctls go to the pod",
			func(s *srv1.StarRocksComponentSpec) {
				s.Sysctls = []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}}
			},
			func(p *corev1.PodSecurityContext) {
				p.Sysctls = []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}}
			},
			nil,
		},
		{
			"runAsNonRoot runs as the image's starrocks user and owns the volumes",
			func(s *srv1.StarRocksComponentSpec) { s.RunAsNonRoot = ptr.To(true) },
			func(p *corev1.PodSecurityContext) { p.FSGroup = ptr.To(int64(1000)) },
			func(c *corev1.SecurityContext) {
				c.RunAsUser, c.RunAsGroup, c.RunAsNonRoot = ptr.To(int64(1000)), ptr.To(int64(1000)), ptr.To(true)
			},
		},
		{"runAsNonRoot false sets no user", func(s *srv1.StarRocksComponentSpec) { s.RunAsNonRoot = ptr.To(false) }, nil, nil},
		{
			"seccompProfile goes to the pod, covering every container (upstream #777)",
			func(s *srv1.StarRocksComponentSpec) {
				s.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
			},
			func(p *corev1.PodSecurityContext) {
				p.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
			},
			nil,
		},
		{
			"capabilities and read-only root go to the main container",
			func(s *srv1.StarRocksComponentSpec) {
				s.Capabilities = &corev1.Capabilities{Add: []corev1.Capability{"SYS_PTRACE"}}
				s.ReadOnlyRootFilesystem = ptr.To(true)
			},
			nil,
			func(c *corev1.SecurityContext) {
				c.Capabilities = &corev1.Capabilities{Add: []corev1.Capability{"SYS_PTRACE"}}
				c.ReadOnlyRootFilesystem = ptr.To(true)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newCluster()
			tt.mutate(componentSpec(src, ComponentFE))
			s := sts(t, src, ComponentFE, Config{})
			wantPod, wantContainer := basePod(), base()
			if tt.wantPod != nil {
				tt.wantPod(wantPod)
			}
			if tt.wantContainer != nil {
				tt.wantContainer(wantContainer)
			}
			if !reflect.DeepEqual(s.Spec.Template.Spec.SecurityContext, wantPod) {
				t.Errorf("pod: %+v", s.Spec.Template.Spec.SecurityContext)
			}
			if !reflect.DeepEqual(mainOf(s).SecurityContext, wantContainer) {
				t.Errorf("container: %+v", mainOf(s).SecurityContext)
			}
		})
	}
}

func TestFEIsNotScaledDownToOne(t *testing.T) {
	tests := []struct {
		name       string
		want, live int32
		result     int32
	}{
		{"3 to 1 keeps 3", 1, 3, 3},
		{"3 to 0 keeps 3", 0, 3, 3},
		{"1 to 0 is allowed: FE stops, its data kept", 0, 1, 0},
		{"3 to 2 is allowed", 2, 3, 2},
		{"1 stays 1", 1, 1, 1},
		{"1 to 3 is allowed", 3, 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(tt.want)}}
			live := &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(tt.live)}}
			changed := KeepFEQuorum(want, live)
			if *want.Spec.Replicas != tt.result || changed != (tt.result != tt.want) {
				t.Errorf("replicas %d (changed %v), want %d", *want.Spec.Replicas, changed, tt.result)
			}
		})
	}
	if KeepFEQuorum(&appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Replicas: ptr.To(int32(1))}}, nil) {
		t.Error("a new FE changed")
	}
}

// dnsPolicy and dnsConfig (upstream PR #696) reach the pod template of FE, BE,
// CN and the FE proxy when set, and nothing is written when they are not:
// the template stays the upstream's, and a switchover restarts no pod.
func TestDNSSettings(t *testing.T) {
	cfg := &corev1.PodDNSConfig{Nameservers: []string{"10.0.0.10"}, Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("2")}}}
	set := func(l *srv1.StarRocksLoadSpec) { l.DNSPolicy, l.DNSConfig = corev1.DNSNone, cfg }
	src := with(func(s *srv1.StarRocksCluster) {
		set(&s.Spec.StarRocksFeSpec.StarRocksLoadSpec)
		set(&s.Spec.StarRocksBeSpec.StarRocksLoadSpec)
		set(&s.Spec.StarRocksCnSpec.StarRocksLoadSpec)
		set(&s.Spec.StarRocksFeProxySpec.StarRocksLoadSpec)
	})
	for _, c := range []Component{ComponentFE, ComponentBE, ComponentCN} {
		pod := sts(t, src, c, Config{}).Spec.Template.Spec
		if pod.DNSPolicy != corev1.DNSNone || !reflect.DeepEqual(pod.DNSConfig, cfg) {
			t.Errorf("%s: dnsPolicy %q, dnsConfig %+v", c, pod.DNSPolicy, pod.DNSConfig)
		}
		unset := sts(t, newCluster(), c, Config{}).Spec.Template.Spec
		if unset.DNSPolicy != "" || unset.DNSConfig != nil {
			t.Errorf("%s without the fields: dnsPolicy %q, dnsConfig %+v; want neither written", c, unset.DNSPolicy, unset.DNSConfig)
		}
	}
	proxy := find[*appsv1.Deployment](t, build(src, ComponentFEProxy, Config{}), src.FeProxyDeploymentName()).Spec.Template.Spec
	if proxy.DNSPolicy != corev1.DNSNone || !reflect.DeepEqual(proxy.DNSConfig, cfg) {
		t.Errorf("FE proxy: dnsPolicy %q, dnsConfig %+v", proxy.DNSPolicy, proxy.DNSConfig)
	}
}
