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
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// volumeKind describes how a mount path is backed: "claim:<class>:<size>",
// "emptyDir", "hostPath:<path>", "configMap:<name>", "secret:<name>", or "" when unmounted.
func volumeKind(t *testing.T, s *appsv1.StatefulSet, mountPath string) string {
	t.Helper()
	m, ok := mountAt(mainOf(s), mountPath)
	if !ok {
		return ""
	}
	if c, ok := claimNamed(s, m.Name); ok {
		class := "<default>"
		if c.Spec.StorageClassName != nil {
			class = *c.Spec.StorageClassName
		}
		size := c.Spec.Resources.Requests[corev1.ResourceStorage]
		if !reflect.DeepEqual(c.Spec.AccessModes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}) {
			t.Errorf("claim %s access modes %v", c.Name, c.Spec.AccessModes)
		}
		return "claim:" + class + ":" + size.String()
	}
	v, ok := volumeNamed(s.Spec.Template.Spec, m.Name)
	switch {
	case !ok:
		t.Fatalf("mount %s refers to no volume %q", mountPath, m.Name)
	case v.EmptyDir != nil:
		return "emptyDir"
	case v.HostPath != nil:
		return "hostPath:" + v.HostPath.Path
	case v.ConfigMap != nil:
		return "configMap:" + v.ConfigMap.Name
	case v.Secret != nil:
		return "secret:" + v.Secret.SecretName
	}
	return "?"
}

func TestStorageVolumes(t *testing.T) {
	const meta, log = "/opt/starrocks/fe/meta", "/opt/starrocks/fe/log"
	tests := []struct {
		name    string
		volumes []srv1.StorageVolume
		want    map[string]string // mount path -> volumeKind
	}{
		{"no storage volumes gives meta and log emptyDirs", nil,
			map[string]string{meta: "emptyDir", log: "emptyDir"}},
		{"storage size starting with 0 skips the volume", []srv1.StorageVolume{{Name: "data", StorageSize: "0", MountPath: "/data"}},
			map[string]string{"/data": "", meta: "emptyDir", log: "emptyDir"}},
		{"a skipped meta volume leaves the default emptyDir", []srv1.StorageVolume{{Name: "fe-meta", StorageSize: "0Gi", MountPath: meta}},
			map[string]string{meta: "emptyDir"}},
		{"0.5Gi also starts with 0 and is skipped", []srv1.StorageVolume{{Name: "data", StorageSize: "0.5Gi", MountPath: "/data"}},
			map[string]string{"/data": ""}},
		{"no storage class makes a claim of the default class", []srv1.StorageVolume{{Name: "fe-meta", StorageSize: "10Gi", MountPath: meta}},
			map[string]string{meta: "claim:<default>:10Gi", log: "emptyDir"}},
		{"a storage class is passed to the claim", []srv1.StorageVolume{{Name: "fe-meta", StorageClassName: ptr.To("fast"), StorageSize: "10Gi", MountPath: meta}},
			map[string]string{meta: "claim:fast:10Gi"}},
		{"an empty storage class is kept (no class, static volumes)", []srv1.StorageVolume{{Name: "fe-meta", StorageClassName: ptr.To(""), StorageSize: "1Ti", MountPath: meta}},
			map[string]string{meta: "claim::1Ti"}},
		{"storage class emptyDir makes an emptyDir", []srv1.StorageVolume{{Name: "scratch", StorageClassName: ptr.To("emptyDir"), StorageSize: "10Gi", MountPath: "/scratch"}},
			map[string]string{"/scratch": "emptyDir"}},
		{"storage class hostPath uses hostPath", []srv1.StorageVolume{{Name: "cache", StorageClassName: ptr.To("hostPath"), HostPath: &corev1.HostPathVolumeSource{Path: "/storage"}, StorageSize: "1Ti", MountPath: "/cache"}},
			map[string]string{"/cache": "hostPath:/storage"}},
		{"a hostPath without a storage class uses hostPath", []srv1.StorageVolume{{Name: "cache", HostPath: &corev1.HostPathVolumeSource{Path: "/storage"}, MountPath: "/cache"}},
			map[string]string{"/cache": "hostPath:/storage"}},
		{"storage class hostPath without a path is refused, never an emptyDir", []srv1.StorageVolume{{Name: "cache", StorageClassName: ptr.To("hostPath"), MountPath: "/cache"}},
			map[string]string{"/cache": ""}},
		{"a missing storage size is refused, never an emptyDir", []srv1.StorageVolume{{Name: "data", MountPath: "/data"}},
			map[string]string{"/data": "", meta: "emptyDir"}},
		{"a user volume at the log path replaces the default (trailing slash too)", []srv1.StorageVolume{{Name: "logs", StorageSize: "1Gi", MountPath: log + "/"}},
			map[string]string{log + "/": "claim:<default>:1Gi", meta: "emptyDir"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newCluster()
			src.Spec.StarRocksFeSpec.StorageVolumes = tt.volumes
			s := sts(t, src, ComponentFE, Config{})
			for p, want := range tt.want {
				if got := volumeKind(t, s, p); got != want {
					t.Errorf("%s: got %q, want %q", p, got, want)
				}
			}
			if errs := validate(s); len(errs) > 0 {
				t.Errorf("invalid: %v", errs)
			}
			if n := len(mainOf(s).VolumeMounts); n != len(s.Spec.Template.Spec.Volumes) {
				t.Errorf("%d mounts for %d volumes", n, len(s.Spec.Template.Spec.Volumes))
			}
			refused := 0
			for _, w := range tt.want {
				if w == "" {
					refused++
				}
			}
			if skipped := strings.Contains(tt.name, "starting with 0") || strings.Contains(tt.name, "0.5Gi"); !skipped {
				if got := len(StorageErrors(src)); got != refused {
					t.Errorf("%d storage errors %v, want %d", got, StorageErrors(src), refused)
				}
			}
		})
	}
}

func TestStorageVolumeDetails(t *testing.T) {
	src := newCluster()
	src.Spec.StarRocksBeSpec.StorageVolumes = []srv1.StorageVolume{
		{Name: "be-data", StorageSize: "1Ti", MountPath: "/opt/starrocks/be/storage", SubPath: "data"},
	}
	s := sts(t, src, ComponentBE, Config{})
	c, ok := claimNamed(s, "be-data")
	if !ok {
		t.Fatal("no be-data claim template")
	}
	want := corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Ti")}},
	}
	if !reflect.DeepEqual(c.Spec, want) || len(c.Labels) != 0 || c.Namespace != "" {
		t.Errorf("claim %+v", c)
	}
	if m, _ := mountAt(mainOf(s), "/opt/starrocks/be/storage"); m.SubPath != "data" || m.Name != "be-data" {
		t.Errorf("mount %+v", m)
	}
	if v, ok := mountAt(mainOf(s), "/opt/starrocks/be/log"); !ok || v.Name != "be-log" {
		t.Errorf("default be-log mount %+v", v)
	}
}

func TestDefaultVolumesPerComponent(t *testing.T) {
	want := map[Component]map[string]string{
		ComponentFE: {"fe-meta": "/opt/starrocks/fe/meta", "fe-log": "/opt/starrocks/fe/log"},
		ComponentBE: {"be-data": "/opt/starrocks/be/storage", "be-log": "/opt/starrocks/be/log"},
		ComponentCN: {"cn-log": "/opt/starrocks/cn/log"}, // CN's cache goes where cn.conf says
	}
	for c, mounts := range want {
		t.Run(string(c), func(t *testing.T) {
			got := map[string]string{}
			for _, m := range mainOf(sts(t, newCluster(), c, Config{})).VolumeMounts {
				got[m.Name] = m.MountPath
			}
			if !reflect.DeepEqual(got, mounts) {
				t.Errorf("mounts %v, want %v", got, mounts)
			}
		})
	}
}

func TestConfigMapsAndSecrets(t *testing.T) {
	t.Run("configMapInfo mounts the whole ConfigMap where the entrypoint looks", func(t *testing.T) {
		src := newCluster()
		src.Spec.StarRocksCnSpec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "cn-cm", ResolveKey: "cn.conf"}
		s := sts(t, src, ComponentCN, Config{})
		if got := volumeKind(t, s, "/etc/starrocks/cn/conf"); got != "configMap:cn-cm" {
			t.Errorf("got %q", got)
		}
		if m, _ := mountAt(mainOf(s), "/etc/starrocks/cn/conf"); m.SubPath != "" {
			t.Errorf("mount %+v", m)
		}
	})
	t.Run("configMaps and secrets are mounted with their subPath", func(t *testing.T) {
		src := newCluster()
		spec := componentSpec(src, ComponentBE)
		spec.ConfigMaps = []srv1.ConfigMapReference{{Name: "hdfs-site", MountPath: "/opt/starrocks/be/conf/hdfs-site.xml", SubPath: "hdfs-site.xml"}}
		spec.Secrets = []srv1.SecretReference{{Name: "s3-keys", MountPath: "/etc/s3"}}
		s := sts(t, src, ComponentBE, Config{})
		if got := volumeKind(t, s, "/opt/starrocks/be/conf/hdfs-site.xml"); got != "configMap:hdfs-site" {
			t.Errorf("configMap: %q", got)
		}
		if m, _ := mountAt(mainOf(s), "/opt/starrocks/be/conf/hdfs-site.xml"); m.SubPath != "hdfs-site.xml" {
			t.Errorf("subPath %q", m.SubPath)
		}
		if got := volumeKind(t, s, "/etc/s3"); got != "secret:s3-keys" {
			t.Errorf("secret: %q", got)
		}
	})
	t.Run("volume names stay unique and valid", func(t *testing.T) {
		src := newCluster()
		spec := componentSpec(src, ComponentFE)
		spec.StorageVolumes = []srv1.StorageVolume{{Name: "fe-meta", StorageSize: "1Gi", MountPath: "/elsewhere"}}
		spec.ConfigMapInfo = srv1.ConfigMapInfo{ConfigMapName: "fe-configmap", ResolveKey: "fe.conf"}
		spec.ConfigMaps = []srv1.ConfigMapReference{
			{Name: "shared", MountPath: "/a", SubPath: "a"},
			{Name: "shared", MountPath: "/b", SubPath: "b"}, // same ConfigMap, a volume per mount
			{Name: "fe-configmap", MountPath: "/c"},
			{Name: "my.dotted.config", MountPath: "/d"},
			{Name: strings.Repeat("x", 100), MountPath: "/e"},
			{Name: "", MountPath: "/skipped"},
			{Name: "no-path"},
		}
		spec.Secrets = []srv1.SecretReference{{Name: "shared", MountPath: "/f"}}
		s := sts(t, src, ComponentFE, Config{})
		if errs := validate(s); len(errs) > 0 {
			t.Fatalf("invalid: %v", errs)
		}
		ma, _ := mountAt(mainOf(s), "/a")
		mb, _ := mountAt(mainOf(s), "/b")
		if ma.Name == mb.Name || !strings.HasPrefix(ma.Name, "shared-") {
			t.Errorf("two mounts of one ConfigMap use volumes %q and %q, want shared-<hash> each", ma.Name, mb.Name)
		}
		wantKinds := map[string]string{
			"/elsewhere": "claim:<default>:1Gi", "/opt/starrocks/fe/meta": "emptyDir",
			"/etc/starrocks/fe/conf": "configMap:fe-configmap", "/c": "configMap:fe-configmap",
			"/d": "configMap:my.dotted.config", "/e": "configMap:" + strings.Repeat("x", 100),
			"/f": "secret:shared", "/skipped": "", "": "",
		}
		for p, want := range wantKinds {
			if got := volumeKind(t, s, p); got != want {
				t.Errorf("%s: got %q, want %q", p, got, want)
			}
		}
		if m, _ := mountAt(mainOf(s), "/elsewhere"); m.Name != "fe-meta" {
			t.Errorf("the user's claim must keep its name, got %q", m.Name)
		}
	})
	t.Run("a ConfigMap mounted at the log path replaces the default emptyDir", func(t *testing.T) {
		src := newCluster()
		componentSpec(src, ComponentFE).ConfigMaps = []srv1.ConfigMapReference{{Name: "logs", MountPath: "/opt/starrocks/fe/log"}}
		if got := volumeKind(t, sts(t, src, ComponentFE, Config{}), "/opt/starrocks/fe/log"); got != "configMap:logs" {
			t.Errorf("got %q", got)
		}
	})
}

func TestMountVolumeNames(t *testing.T) {
	// The upstream v1.11.5 named the FE proxy's volume of cluster cr-000 so (upstream-rendered).
	if got := mountVolumeName("cr-000-fe-proxy", "/etc/nginx", "", Options{}); got != "cr-000-fe-proxy-3828" {
		t.Errorf("got %q, want the upstream's cr-000-fe-proxy-3828", got)
	}
	if got := mountVolumeName("cr-000-fe-proxy", "/etc/nginx", "", Options{PlainVolumeNames: true}); got != "cr-000-fe-proxy" {
		t.Errorf("--volume-name-with-hash=false: got %q", got)
	}
	if mountVolumeName("cm", "/a", "", Options{}) == mountVolumeName("cm", "/b", "", Options{}) {
		t.Error("two mounts of one ConfigMap share a volume name")
	}
}

func TestConfigMapModes(t *testing.T) {
	tests := []struct {
		name     string
		command  []string
		subPath  string
		wantMode *int32
	}{
		{"a script mounted with subPath for a user command is executable", []string{"/opt/run.sh"}, "run.sh", ptr.To(int32(0o755))},
		{"without a user command the default mode stays", nil, "run.sh", nil},
		{"a whole-ConfigMap mount keeps the default mode", []string{"/opt/run.sh"}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newCluster()
			spec := componentSpec(src, ComponentCN)
			spec.Command = tt.command
			spec.ConfigMaps = []srv1.ConfigMapReference{{Name: "scripts", MountPath: "/opt/run.sh", SubPath: tt.subPath}}
			s := sts(t, src, ComponentCN, Config{})
			m, _ := mountAt(mainOf(s), "/opt/run.sh")
			v, _ := volumeNamed(s.Spec.Template.Spec, m.Name)
			if v.ConfigMap == nil || !reflect.DeepEqual(v.ConfigMap.DefaultMode, tt.wantMode) {
				t.Errorf("volume %+v", v.ConfigMap)
			}
		})
	}
}

func TestStorageErrorsNameTheField(t *testing.T) {
	src := newCluster()
	src.Spec.StarRocksBeSpec.StorageVolumes = []srv1.StorageVolume{
		{Name: "data", StorageClassName: ptr.To("hostPath"), MountPath: "/data"},
		{Name: "log", MountPath: "/log"},
		{Name: "ok", StorageSize: "1Gi", MountPath: "/ok"},
	}
	got := StorageErrors(src)
	if len(got) != 2 || !strings.HasPrefix(got[0], "spec.starRocksBeSpec.storageVolumes: storage volume \"data\" has storageClassName hostPath but no hostPath") ||
		!strings.Contains(got[1], "\"log\" has no storageSize") {
		t.Errorf("errors %q", got)
	}
}
