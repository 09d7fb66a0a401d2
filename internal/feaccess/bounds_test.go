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

package feaccess

import (
	"fmt"
	"testing"

	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

// The numbers docs/security.md gives for the bounds.
func TestAnswerBoundsFollowTheClustersPods(t *testing.T) {
	spec := func(fe, be, cn int32, cnMax int32) *srv1.StarRocksCluster {
		s := &srv1.StarRocksCluster{Spec: srv1.StarRocksClusterSpec{
			StarRocksFeSpec: &srv1.StarRocksFeSpec{}, StarRocksBeSpec: &srv1.StarRocksBeSpec{}}}
		s.Spec.StarRocksFeSpec.Replicas, s.Spec.StarRocksBeSpec.Replicas = ptr.To(fe), ptr.To(be)
		if cn > 0 {
			s.Spec.StarRocksCnSpec = &srv1.StarRocksCnSpec{}
			s.Spec.StarRocksCnSpec.Replicas = ptr.To(cn)
			if cnMax > 0 {
				s.Spec.StarRocksCnSpec.AutoScalingPolicy = &srv1.AutoScalingPolicy{MaxReplicas: cnMax}
			}
		}
		return s
	}
	for _, tc := range []struct {
		src   *srv1.StarRocksCluster
		rows  int
		bytes string
	}{
		{spec(3, 3, 0, 0), 280, "5.1 MiB"},
		{spec(3, 497, 500, 0), 4256, "20.6 MiB"},
		{spec(1, 3, 2, 10), 320, "5.2 MiB"},
	} {
		rows, bytes := answerBounds(tc.src)
		if got := fmt.Sprintf("%.1f MiB", float64(bytes)/(1<<20)); rows != tc.rows || got != tc.bytes {
			t.Errorf("%d pods: %d rows, %s; want %d, %s", clusterPods(tc.src), rows, got, tc.rows, tc.bytes)
		}
	}
}

func TestHostileAnswersHaveTheirOwnReasons(t *testing.T) {
	for err, want := range map[error]string{
		fmt.Errorf("SHOW BACKENDS: %w", &fe.AnswerTooLargeError{What: "SHOW BACKENDS", Limit: 280, Unit: "rows"}):                  srv1.ReasonFEAnswerTooLarge,
		fmt.Errorf("SHOW BACKENDS: %w", &fe.InvalidAnswerError{Detail: "column heartbeatport of \"h\" is \"1e30\", not a number"}): srv1.ReasonFEAnswerInvalid,
		fmt.Errorf("connect: %w", &fe.AuthPluginError{Plugin: "caching_sha2_password", Where: "greeting"}):                         srv1.ReasonFEAuthPluginRefused,
	} {
		if got := Classify(err).Reason; got != want {
			t.Errorf("Classify(%v) = %s, want %s", err, got, want)
		}
	}
}

// A tenant's annotation cannot weaken the operator's TLS; it is said once.
func TestTheSSLAnnotationOnlyStrengthens(t *testing.T) {
	d := New(nil, Options{TLS: fe.TLS{Mode: fe.SSLRequired}})
	src := &srv1.StarRocksCluster{}
	src.Namespace, src.Name, src.UID = "tenant", "c", "u1"
	src.Annotations = map[string]string{srv1.FESSLModeAnnotation: "DISABLED"}
	if got, err := ClusterTLS(src, fe.TLS{Mode: fe.SSLRequired}); err != nil || got.Mode != fe.SSLRequired {
		t.Errorf("operator REQUIRED, annotated DISABLED: %s, %v; want REQUIRED", got.Mode, err)
	}
	var told []bool
	for range 3 {
		_, first := d.IgnoredSSLMode(src)
		told = append(told, first)
	}
	src.Annotations[srv1.FESSLModeAnnotation] = "PREFERRED"
	_, first := d.IgnoredSSLMode(src)
	told = append(told, first)
	if fmt.Sprint(told) != "[true false false true]" {
		t.Errorf("told %v; want once per weaker value: [true false false true]", told)
	}
	src.Annotations[srv1.FESSLModeAnnotation] = "VERIFY_IDENTITY"
	if msg, _ := d.IgnoredSSLMode(src); msg != "" {
		t.Errorf("a stronger annotation is no warning: %q", msg)
	}
}
