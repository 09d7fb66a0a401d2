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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// Environment of FE during a disaster recovery: the FE entrypoint restores
// the cluster from the snapshot named in cluster_snapshot.yaml.
const (
	RestoreGenerationEnv = "RESTORE_CLUSTER_GENERATION"
	RestoreSnapshotEnv   = "RESTORE_CLUSTER_SNAPSHOT"
	// ClusterSnapshotFile must be one of FE's configMaps for a recovery.
	ClusterSnapshotFile = "cluster_snapshot.yaml"
)

// ClusterSnapshotSources are the configMaps entries of FE that put
// cluster_snapshot.yaml where FE reads it, $STARROCKS_HOME/conf (facts
// sheet §13: RestoreClusterSnapshotMgr loads
// $STARROCKS_HOME/conf/cluster_snapshot.yaml, StarRocksFE.java): a
// ConfigMap mounted whole at /opt/starrocks/fe/conf, read at the key
// cluster_snapshot.yaml, or one key of it mounted with subPath at
// /opt/starrocks/fe/conf/cluster_snapshot.yaml. An entry mounted anywhere
// else restores nothing.
func ClusterSnapshotSources(spec *srv1.StarRocksComponentSpec) []ConfSource {
	if spec == nil {
		return nil
	}
	dir := starRocksRoot + "/" + string(ComponentFE) + "/conf"
	var out []ConfSource
	for _, r := range spec.ConfigMaps {
		switch {
		case r.Name == "":
		case r.SubPath == "" && path.Clean(r.MountPath) == dir:
			out = append(out, ConfSource{ConfigMap: r.Name, Key: ClusterSnapshotFile})
		case r.SubPath != "" && path.Clean(r.MountPath) == dir+"/"+ClusterSnapshotFile:
			out = append(out, ConfSource{ConfigMap: r.Name, Key: r.SubPath})
		}
	}
	return out
}

// DisasterRecoveryFE turns the FE StatefulSet built by FE into the one that
// restores a shared-data cluster, as upstream does: one replica, no startup or
// liveness probe (a restore takes as long as it takes), readiness on the
// query port accepting connections, and the restore variables. It changes
// sts in place, so that plans holding the pointer keep seeing it.
func DisasterRecoveryFE(objs *StatefulSetObjects, src *srv1.StarRocksCluster, feConf string, generation int64) {
	if objs == nil || objs.StatefulSet == nil || len(objs.StatefulSet.Spec.Template.Spec.Containers) == 0 {
		return
	}
	sts := objs.StatefulSet
	sts.Spec.Replicas = ptr.To(int32(1))
	main := &sts.Spec.Template.Spec.Containers[0]
	main.StartupProbe, main.LivenessProbe = nil, nil
	var load *srv1.StarRocksLoadSpec
	if src.Spec.StarRocksFeSpec != nil {
		load = &src.Spec.StarRocksFeSpec.StarRocksLoadSpec
	}
	seconds := (*int32)(nil)
	if load != nil {
		seconds = load.ReadinessProbeFailureSeconds
	}
	main.ReadinessProbe = probe(seconds, defaultReadinessFailureSeconds, tcpHealth(portNamed(effectivePorts(ComponentFE, feConf), fePortQuery)))
	env := make([]corev1.EnvVar, 0, len(main.Env)+2)
	for _, e := range main.Env {
		if e.Name != RestoreGenerationEnv && e.Name != RestoreSnapshotEnv {
			env = append(env, e)
		}
	}
	env = append(env,
		corev1.EnvVar{Name: RestoreGenerationEnv, Value: strconv.FormatInt(generation, 10)},
		corev1.EnvVar{Name: RestoreSnapshotEnv, Value: "true"})
	main.Env = env
}

// RestoreGeneration is the recovery generation a live FE StatefulSet runs, if any.
func RestoreGeneration(main corev1.Container) (int64, bool) {
	for _, e := range main.Env {
		if e.Name == RestoreGenerationEnv {
			n, err := strconv.ParseInt(e.Value, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
