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
	"path"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	v1 "github.com/srscale/starrocks-operator/api/v1"
)

// Storage classes with a special meaning in storageVolumes[].storageClassName.
const (
	storageClassEmptyDir = "emptyDir"
	storageClassHostPath = "hostPath"
)

// defaultVolume is a directory the component writes to that gets an emptyDir
// when the user gives it no volume: writing it into the container's writable
// layer would fill the node's image filesystem and be slow.
type defaultVolume struct {
	name      string
	mountPath string
}

func defaultVolumes(c Component) []defaultVolume {
	switch c {
	case ComponentFE:
		return []defaultVolume{{"fe-meta", "/opt/starrocks/fe/meta"}, {"fe-log", "/opt/starrocks/fe/log"}}
	case ComponentBE:
		return []defaultVolume{{"be-data", "/opt/starrocks/be/storage"}, {"be-log", "/opt/starrocks/be/log"}}
	case ComponentCN:
		return []defaultVolume{{"cn-data", "/opt/starrocks/cn/storage"}, {"cn-log", "/opt/starrocks/cn/log"}}
	}
	return nil
}

// configMapMountPath is where configMapInfo's ConfigMap is mounted; the image's
// entrypoint reads the .conf from there (CONFIGMAP_MOUNT_PATH).
func configMapMountPath(c Component) string {
	return "/etc/starrocks/" + string(c) + "/configmap"
}

// podVolumes are the volumes, claim templates and main-container mounts of a pod.
type podVolumes struct {
	volumes []corev1.Volume
	claims  []corev1.PersistentVolumeClaim
	mounts  []corev1.VolumeMount

	used   map[string]bool   // volume and claim names taken
	shared map[string]string // "configmap/<name>" or "secret/<name>" -> volume name
}

// componentVolumes are the volumes of FE, BE or CN, in this order: storageVolumes,
// the default emptyDirs, configMapInfo, configMaps, secrets. Names are given in
// that order too, so user-chosen names (which name the PersistentVolumeClaims)
// are never changed to make room for ours.
//
// storageVolumes:
//   - a storageSize starting with "0" skips the volume (upstream's rule; so
//     "0", "0Gi" and also "0.5Gi"), and its directory then gets the default emptyDir;
//   - storageClassName "emptyDir" makes an emptyDir, without a size limit:
//     going over a limit evicts the pod, which surprises more than it protects;
//   - storageClassName "hostPath" makes a hostPath volume from hostPath (an
//     emptyDir when hostPath is missing, rather than a pod the API server rejects);
//   - anything else makes a ReadWriteOnce claim template of storageSize with
//     that storage class (none: the cluster's default class). Without a
//     (parsable) storageSize a claim can't be made, so that is an emptyDir too.
//
// configMaps[] and secrets[] entries without a name or mountPath are skipped;
// several mounts of one ConfigMap or Secret share one volume.
func componentVolumes(c Component, spec *v1.StarRocksComponentSpec) podVolumes {
	v := podVolumes{used: map[string]bool{}, shared: map[string]string{}}

	userPaths := map[string]bool{}
	for _, sv := range spec.StorageVolumes {
		if !skipStorageVolume(sv) {
			userPaths[path.Clean(sv.MountPath)] = true
		}
	}
	for _, r := range spec.ConfigMaps {
		if r.Name != "" && r.MountPath != "" {
			userPaths[path.Clean(r.MountPath)] = true
		}
	}
	for _, r := range spec.Secrets {
		if r.Name != "" && r.MountPath != "" {
			userPaths[path.Clean(r.MountPath)] = true
		}
	}

	for _, sv := range spec.StorageVolumes {
		if !skipStorageVolume(sv) {
			v.addStorageVolume(sv)
		}
	}
	for _, d := range defaultVolumes(c) {
		if !userPaths[d.mountPath] {
			name := v.name(d.name)
			v.volumes = append(v.volumes, emptyDirVolume(name))
			v.mounts = append(v.mounts, corev1.VolumeMount{Name: name, MountPath: d.mountPath})
		}
	}
	if info := spec.ConfigMapInfo; info.ConfigMapName != "" {
		name := v.name(string(c) + "-configmap")
		v.volumes = append(v.volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: info.ConfigMapName}},
		}})
		// The whole ConfigMap, not a subPath, so that kubelet refreshes the files.
		v.mounts = append(v.mounts, corev1.VolumeMount{Name: name, MountPath: configMapMountPath(c)})
	}
	for _, r := range spec.ConfigMaps {
		if r.Name == "" || r.MountPath == "" {
			continue
		}
		name := v.sharedVolume("configmap/"+r.Name, r.Name, corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: r.Name}},
		})
		v.mounts = append(v.mounts, corev1.VolumeMount{Name: name, MountPath: r.MountPath, SubPath: r.SubPath})
	}
	for _, r := range spec.Secrets {
		if r.Name == "" || r.MountPath == "" {
			continue
		}
		name := v.sharedVolume("secret/"+r.Name, r.Name, corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: r.Name},
		})
		v.mounts = append(v.mounts, corev1.VolumeMount{Name: name, MountPath: r.MountPath, SubPath: r.SubPath})
	}
	return v
}

// skipStorageVolume reports whether a storage volume makes nothing: a size
// starting with "0" (upstream's way to turn a volume off), or no mount path.
func skipStorageVolume(sv v1.StorageVolume) bool {
	return strings.HasPrefix(sv.StorageSize, "0") || sv.MountPath == ""
}

func (v *podVolumes) addStorageVolume(sv v1.StorageVolume) {
	name := v.name(sv.Name)
	v.mounts = append(v.mounts, corev1.VolumeMount{Name: name, MountPath: sv.MountPath, SubPath: sv.SubPath})

	class := ""
	if sv.StorageClassName != nil {
		class = *sv.StorageClassName
	}
	switch {
	case strings.EqualFold(class, storageClassEmptyDir):
		v.volumes = append(v.volumes, emptyDirVolume(name))
		return
	case strings.EqualFold(class, storageClassHostPath):
		if sv.HostPath == nil {
			v.volumes = append(v.volumes, emptyDirVolume(name))
			return
		}
		v.volumes = append(v.volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: sv.HostPath.DeepCopy()}})
		return
	}
	size, err := resource.ParseQuantity(sv.StorageSize)
	if sv.StorageSize == "" || err != nil {
		v.volumes = append(v.volumes, emptyDirVolume(name))
		return
	}
	claim := corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: size},
			},
		},
	}
	if sv.StorageClassName != nil {
		claim.Spec.StorageClassName = &class
	}
	v.claims = append(v.claims, claim)
}

// sharedVolume is the name of the volume for key, made from source on first use.
func (v *podVolumes) sharedVolume(key, want string, source corev1.VolumeSource) string {
	if name, ok := v.shared[key]; ok {
		return name
	}
	name := v.name(want)
	v.shared[key] = name
	v.volumes = append(v.volumes, corev1.Volume{Name: name, VolumeSource: source})
	return name
}

// name reserves a valid, unused volume name as close to want as possible.
func (v *podVolumes) name(want string) string {
	base := dnsLabel(want)
	name := base
	for i := 2; v.used[name]; i++ {
		suffix := "-" + strconv.Itoa(i)
		name = strings.TrimRight(shorten(base, validation.DNS1123LabelMaxLength-len(suffix)), "-") + suffix
	}
	v.used[name] = true
	return name
}

// dnsLabel makes s a DNS-1123 label (what volume names must be): lower case,
// other characters (such as the dots a ConfigMap name may have) replaced by
// '-', at most 63 characters.
func dnsLabel(s string) string {
	if len(validation.IsDNS1123Label(s)) == 0 {
		return s
	}
	b := []byte(strings.ToLower(s))
	for i, ch := range b {
		if (ch < 'a' || ch > 'z') && (ch < '0' || ch > '9') {
			b[i] = '-'
		}
	}
	out := strings.Trim(string(b), "-")
	if out == "" {
		return "volume"
	}
	return strings.Trim(shorten(out, validation.DNS1123LabelMaxLength), "-")
}

func emptyDirVolume(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
}
