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
	"fmt"
	"hash/fnv"
	"path"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
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
		// CN keeps its cache wherever cn.conf says; only the log has a default.
		return []defaultVolume{{"cn-log", "/opt/starrocks/cn/log"}}
	}
	return nil
}

// configMapMountPath is where configMapInfo's ConfigMap is mounted; the image's
// entrypoint reads the .conf from there (CONFIGMAP_MOUNT_PATH).
func configMapMountPath(c Component) string {
	return "/etc/starrocks/" + string(c) + "/conf"
}

// Modes of the files of configMaps[] volumes.
const (
	// executableMode lets a script mounted with subPath run as the user's command.
	executableMode = int32(0o755)
)

// podVolumes are the volumes, claim templates and main-container mounts of a pod.
type podVolumes struct {
	volumes []corev1.Volume
	claims  []corev1.PersistentVolumeClaim
	mounts  []corev1.VolumeMount

	used map[string]bool // volume and claim names taken
}

// componentVolumes are the volumes of FE, BE or CN, in the upstream's order:
// storageVolumes, the default emptyDirs, configMapInfo, configMaps, secrets.
// Names are given in that order too, so user-chosen names (which name the
// PersistentVolumeClaims) are never changed to make room for ours.
//
// storageVolumes (see StorageErrors for the ones that are refused):
//   - a storageSize starting with "0" skips the volume (upstream's rule; so
//     "0", "0Gi" and also "0.5Gi"), and its directory then gets the default emptyDir;
//   - storageClassName "emptyDir" makes an emptyDir, without a size limit:
//     going over a limit evicts the pod, which surprises more than it protects;
//   - a hostPath with storageClassName "hostPath" or none mounts that host path;
//   - anything else makes a ReadWriteOnce claim template of storageSize with
//     that storage class (none: the cluster's default class), and the pod
//     volume of the same name that the upstream writes beside it.
//
// configMapInfo's ConfigMap is mounted under its own name, as the upstream
// does. configMaps[] and secrets[] entries (without a name or mountPath they
// are skipped) get a volume each, named <name>-<hash of the entry> unless
// opts.PlainVolumeNames: one ConfigMap may be mounted at several paths. A
// configMaps[] file mounted with subPath into a container whose command or
// args are set is made executable (0755): it is usually the script they run.
func componentVolumes(c Component, spec *srv1.StarRocksComponentSpec, opts Options) podVolumes {
	v := podVolumes{used: map[string]bool{}}

	userPaths := map[string]bool{}
	for _, sv := range spec.StorageVolumes {
		if !skipStorageVolume(sv) {
			userPaths[path.Clean(sv.MountPath)] = true
		}
	}
	// Unlike the upstream, a ConfigMap or Secret mounted at a default
	// directory replaces its emptyDir rather than clash with it.
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
		if !skipStorageVolume(sv) && storageVolumeError(sv) == "" {
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
	if info := spec.ConfigMapInfo; info.ConfigMapName != "" && info.ResolveKey != "" {
		name := v.name(info.ConfigMapName)
		v.volumes = append(v.volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: info.ConfigMapName}},
		}})
		// The whole ConfigMap, not a subPath, so that kubelet refreshes the files.
		v.mounts = append(v.mounts, corev1.VolumeMount{Name: name, MountPath: configMapMountPath(c)})
	}
	runsUserCommand := len(spec.Command) > 0 || len(spec.Args) > 0
	for _, r := range spec.ConfigMaps {
		if r.Name == "" || r.MountPath == "" {
			continue
		}
		source := &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: r.Name}}
		if runsUserCommand && r.SubPath != "" {
			source.DefaultMode = ptr.To(executableMode)
		}
		v.addMount(mountVolumeName(r.Name, r.MountPath, r.SubPath, opts), r.MountPath, r.SubPath, corev1.VolumeSource{ConfigMap: source})
	}
	for _, r := range spec.Secrets {
		if r.Name == "" || r.MountPath == "" {
			continue
		}
		v.addMount(mountVolumeName(r.Name, r.MountPath, r.SubPath, opts), r.MountPath, r.SubPath,
			corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: r.Name}})
	}
	return v
}

func (v *podVolumes) addMount(want, mountPath, subPath string, source corev1.VolumeSource) {
	name := v.name(want)
	v.volumes = append(v.volumes, corev1.Volume{Name: name, VolumeSource: source})
	v.mounts = append(v.mounts, corev1.VolumeMount{Name: name, MountPath: mountPath, SubPath: subPath})
}

// mountVolumeName is the upstream's name for the volume of a configMaps[] or
// secrets[] entry: <name>-<first 4 digits of the FNV-1a hash of the entry>,
// the entry printed as the upstream's hash library prints its MountInfo type.
// Keeping the exact name is what keeps an adopted pod template unchanged.
func mountVolumeName(name, mountPath, subPath string, opts Options) string {
	if opts.PlainVolumeNames {
		return name
	}
	h := fnv.New32a()
	fmt.Fprintf(h, "(v1.MountInfo){Name:(string)%s MountPath:(string)%s SubPath:(string)%s}", name, mountPath, subPath)
	sum := strconv.FormatUint(uint64(h.Sum32()), 10)
	return name + "-" + sum[:min(4, len(sum))]
}

// skipStorageVolume reports whether a storage volume makes nothing: a size
// starting with "0" (upstream's way to turn a volume off), or no mount path.
func skipStorageVolume(sv srv1.StorageVolume) bool {
	return strings.HasPrefix(sv.StorageSize, "0") || sv.MountPath == ""
}

// storageVolumeError says why a storage volume cannot be made; "" when it can.
// The upstream would silently fall back to an emptyDir, which loses the data
// on every restart: we refuse instead.
func storageVolumeError(sv srv1.StorageVolume) string {
	class := ptr.Deref(sv.StorageClassName, "")
	switch {
	case strings.EqualFold(class, storageClassEmptyDir):
		return ""
	case strings.EqualFold(class, storageClassHostPath) && sv.HostPath == nil:
		return fmt.Sprintf("storage volume %q has storageClassName hostPath but no hostPath", sv.Name)
	case sv.HostPath != nil && (class == "" || strings.EqualFold(class, storageClassHostPath)):
		return ""
	}
	if sv.StorageSize == "" {
		return fmt.Sprintf("storage volume %q has no storageSize: a PersistentVolumeClaim needs one (use storageClassName emptyDir for scratch space)", sv.Name)
	}
	if _, err := resource.ParseQuantity(sv.StorageSize); err != nil {
		return fmt.Sprintf("storage volume %q: storageSize %q is not a quantity such as 10Gi", sv.Name, sv.StorageSize)
	}
	return ""
}

// StorageErrors lists, per component, the storage volumes that cannot be made
// (see storageVolumeError), as messages naming the spec field; none when all can.
func StorageErrors(src *srv1.StarRocksCluster) []string {
	var out []string
	for _, c := range []struct {
		field string
		spec  *srv1.StarRocksComponentSpec
	}{
		{"spec.starRocksFeSpec", ComponentSpec(src, ComponentFE)},
		{"spec.starRocksBeSpec", ComponentSpec(src, ComponentBE)},
		{"spec.starRocksCnSpec", ComponentSpec(src, ComponentCN)},
	} {
		if c.spec == nil {
			continue
		}
		for _, sv := range c.spec.StorageVolumes {
			if skipStorageVolume(sv) {
				continue
			}
			if msg := storageVolumeError(sv); msg != "" {
				out = append(out, c.field+".storageVolumes: "+msg)
			}
		}
	}
	return out
}

func (v *podVolumes) addStorageVolume(sv srv1.StorageVolume) {
	name := v.name(sv.Name)
	v.mounts = append(v.mounts, corev1.VolumeMount{Name: name, MountPath: sv.MountPath, SubPath: sv.SubPath})

	class := ptr.Deref(sv.StorageClassName, "")
	switch {
	case strings.EqualFold(class, storageClassEmptyDir):
		v.volumes = append(v.volumes, emptyDirVolume(name))
		return
	case sv.HostPath != nil && (class == "" || strings.EqualFold(class, storageClassHostPath)):
		v.volumes = append(v.volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: sv.HostPath.DeepCopy()}})
		return
	}
	size := resource.MustParse(sv.StorageSize) // checked by storageVolumeError
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
	// The StatefulSet controller replaces this volume with the pod's claim; the
	// upstream writes it, so a template without it would differ.
	v.volumes = append(v.volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name},
	}})
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
