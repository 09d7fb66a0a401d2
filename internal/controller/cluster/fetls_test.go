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

package cluster

import (
	"crypto/x509"
	"strings"
	"testing"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

func TestTheClusterAnnotationOverridesTheOperatorsSSLMode(t *testing.T) {
	roots := x509.NewCertPool()
	operator := fe.TLS{Mode: fe.SSLPreferred, RootCAs: roots}
	src := feCluster()
	got, err := feaccess.ClusterTLS(src, operator)
	if err != nil || got.Mode != fe.SSLPreferred {
		t.Fatalf("without the annotation: %+v, %v; want the operator's PREFERRED", got, err)
	}
	src.Annotations = map[string]string{srv1.FESSLModeAnnotation: "verify_identity"}
	got, err = feaccess.ClusterTLS(src, operator)
	if err != nil || got.Mode != fe.SSLVerifyIdentity || got.RootCAs != roots {
		t.Fatalf("annotated verify_identity: %+v, %v; want VERIFY_IDENTITY with the operator's CA bundle", got, err)
	}
	// A weaker annotation is ignored, and said.
	strict := fe.TLS{Mode: fe.SSLVerifyIdentity, RootCAs: roots}
	for _, weaker := range []string{"DISABLED", "preferred", "REQUIRED", "VERIFY_CA"} {
		src.Annotations[srv1.FESSLModeAnnotation] = weaker
		got, err = feaccess.ClusterTLS(src, strict)
		if err != nil || got.Mode != fe.SSLVerifyIdentity {
			t.Errorf("operator VERIFY_IDENTITY, annotated %s: %+v, %v; want the operator's VERIFY_IDENTITY", weaker, got.Mode, err)
		}
		if msg := feaccess.WeakerSSLMode(src, strict); !strings.Contains(msg, "may only strengthen") {
			t.Errorf("annotated %s: warning %q", weaker, msg)
		}
	}
	src.Annotations[srv1.FESSLModeAnnotation] = "on"
	for _, err := range []error{func() error { _, err := feaccess.ClusterTLS(src, operator); return err }(), validate(src)} {
		if reconcile.Reason(err) != srv1.ReasonInvalidFESSLMode || reconcile.Transient(err) || !strings.Contains(err.Error(), srv1.FESSLModeAnnotation) {
			t.Errorf("annotated %q: %v (reason %s), want a user error %s naming the annotation", "on", err, reconcile.Reason(err), srv1.ReasonInvalidFESSLMode)
		}
	}
}
