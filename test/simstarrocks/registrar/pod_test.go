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

package registrar

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

func TestGrepWordMatchesAsTheScriptsGrep(t *testing.T) {
	const host = "c-be-1.c-be-search.ns.svc.cluster.local"
	for _, tc := range []struct {
		name, output string
		want         bool
	}{
		{"the IP column of a row", "10001\t" + host + "\t9050\t9060", true},
		{"a longer host that merely ends with it is a match, as for grep -w", "x." + host + "\t9050", true},
		{"a host with one more digit is not", "10001\tc-be-11.c-be-search.ns.svc.cluster.local\t9050", false},
		{"a word character after it is not", "10001\t" + host + "x\t9050", false},
		{"'.' matches any character, as in a regular expression", "c-be-1xc-be-search.ns.svc.cluster.local", true},
		{"no output", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := len(grepWord(tc.output, host)) > 0; got != tc.want {
				t.Errorf("grep -w %q in %q = %t, want %t", host, tc.output, got, tc.want)
			}
		})
	}
}

func TestLeaderIsTheIPColumnOfTheLeaderRow(t *testing.T) {
	out := "fe-0_9010_1\tfe-0.s.ns.svc.cluster.local\t9010\t8030\t9030\t9020\tLEADER\t1\ttrue\ttrue\n" +
		"fe-1_9010_2\tfe-1.s.ns.svc.cluster.local\t9010\t8030\t9030\t9020\tFOLLOWER\t1\ttrue\ttrue"
	if got := leaderIn(out); got != "fe-0.s.ns.svc.cluster.local" {
		t.Errorf("leader = %q", got)
	}
	if got := leaderIn(""); got != "" {
		t.Errorf("leader of no rows = %q", got)
	}
}

func TestIdentityFollowsTheKubeletsHostname(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "c-fe-2", Namespace: "ns"},
		Spec:       corev1.PodSpec{Hostname: "c-fe-2", Subdomain: "c-fe-search"},
	}
	if got := hostnameF(pod, "example.org"); got != "c-fe-2.c-fe-search.ns.svc.example.org" {
		t.Errorf("hostname -f = %q", got)
	}
	if i, ok := podIndex(hostnameF(pod, "cluster.local")); !ok || i != 2 {
		t.Errorf("POD_INDEX = %d, %t", i, ok)
	}
	pod.Spec.Subdomain = ""
	if got := hostnameF(pod, "cluster.local"); got != "c-fe-2" {
		t.Errorf("hostname -f without a subdomain = %q", got)
	}
}

func TestROLEOutlivesWhatItsVolumeOutlives(t *testing.T) {
	container := corev1.Container{Name: "fe", VolumeMounts: []corev1.VolumeMount{{Name: "fe-meta", MountPath: "/opt/starrocks/fe/meta"}}}
	pod := func(uid string, restarts int32, volume corev1.VolumeSource) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "c-fe-1", Namespace: "ns", UID: k8stypes.UID(uid)},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{container}, Volumes: []corev1.Volume{{Name: "fe-meta", VolumeSource: volume}}},
			Status:     corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "fe", RestartCount: restarts}}},
		}
	}
	claim := corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "fe-meta-c-fe-1"}}
	emptyDir := corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	key := func(p *corev1.Pod) string { return metaKey(p, &p.Spec.Containers[0]) }
	if key(pod("a", 0, claim)) != key(pod("b", 3, claim)) {
		t.Error("a claim does not survive the pod's re-creation")
	}
	if key(pod("a", 0, emptyDir)) != key(pod("a", 1, emptyDir)) || key(pod("a", 0, emptyDir)) == key(pod("b", 0, emptyDir)) {
		t.Error("an emptyDir must survive container restarts and nothing more")
	}
	bare := pod("a", 0, emptyDir)
	bare.Spec.Containers[0].VolumeMounts = nil
	again := bare.DeepCopy()
	again.Status.ContainerStatuses[0].RestartCount = 1
	if key(bare) == key(again) {
		t.Error("the container's own filesystem survives a restart")
	}
}

func TestMySQLPasswordComesFromTheEnvironment(t *testing.T) {
	kube := fake.NewClientset(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: "ns"},
		Data:       map[string][]byte{"password": []byte("s3cret")},
	})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
	ref := func(name string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: "password"}}
	}
	for _, tc := range []struct {
		name string
		env  []corev1.EnvVar
		want string
	}{
		{"a literal value", []corev1.EnvVar{{Name: "MYSQL_PWD", Value: "lit"}}, "lit"},
		{"a Secret key", []corev1.EnvVar{{Name: "MYSQL_PWD", ValueFrom: ref("root")}}, "s3cret"},
		{"an unreadable Secret gives an empty password", []corev1.EnvVar{{Name: "MYSQL_PWD", ValueFrom: ref("missing")}}, ""},
		{"the last definition wins", []corev1.EnvVar{{Name: "MYSQL_PWD", Value: "first"}, {Name: "MYSQL_PWD", ValueFrom: ref("root")}}, "s3cret"},
		{"none", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &corev1.Container{Env: tc.env}
			if got := environment(context.Background(), kube, pod, c)["MYSQL_PWD"]; got != tc.want {
				t.Errorf("MYSQL_PWD = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAWarehousePodJoinsItsClustersFE(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Labels: map[string]string{"app.kubernetes.io/instance": "wh-a-warehouse"}}}
	if got := clusterOf(pod, &corev1.Container{Env: []corev1.EnvVar{{Name: "FE_SERVICE_NAME", Value: "c-fe-service"}}}); got != "c" {
		t.Errorf("a warehouse CN's cluster = %q", got)
	}
	if got := clusterOf(pod, &corev1.Container{Env: []corev1.EnvVar{{Name: "FE_SERVICE_NAME", Value: "c-fe-service.ns"}}}); got != "c" {
		t.Errorf("an FE's cluster = %q", got)
	}
	if got := clusterOf(pod, &corev1.Container{}); got != "wh-a-warehouse" {
		t.Errorf("without FE_SERVICE_NAME = %q", got)
	}
}

func TestImageRelease(t *testing.T) {
	for image, want := range map[string]string{
		"starrocks/be-ubuntu:3.4.1":           "3.4.1",
		"registry:5000/starrocks/fe:v3.3.2":   "3.3.2",
		"starrocks/fe-ubuntu:3.5.0-rc01":      "3.5.0",
		"starrocks/fe-ubuntu:3.3-latest":      "",
		"starrocks/fe-ubuntu:latest":          "",
		"starrocks/fe-ubuntu@sha256:abcd":     "",
		"registry:5000/starrocks/fe-ubuntu":   "",
		"starrocks/fe-ubuntu:2.5.22@sha256:a": "2.5.22",
	} {
		if got := ImageRelease(image); got != want {
			t.Errorf("%s: %q, want %q", image, got, want)
		}
	}
}
