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

package options

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/internal/fe"
)

// caFile writes a CA certificate made for the test (never committed) to a
// PEM file and returns its path.
func caFile(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFESSLModeDefaultsToTheUpstreamsAndIgnoresCase(t *testing.T) {
	o, err := parse(t)
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.FETLS()
	if err != nil || got.Mode != fe.SSLPreferred || got.RootCAs != nil {
		t.Fatalf("default: %+v, %v; want PREFERRED without a CA bundle", got, err)
	}
	for arg, want := range map[string]fe.SSLMode{"disabled": fe.SSLDisabled, "Required": fe.SSLRequired, "PREFERRED": fe.SSLPreferred} {
		o, err := parse(t, "--fe-ssl-mode="+arg)
		if err != nil {
			t.Fatalf("--fe-ssl-mode=%s: %v", arg, err)
		}
		if got, _ := o.FETLS(); got.Mode != want {
			t.Errorf("--fe-ssl-mode=%s: mode %s, want %s", arg, got.Mode, want)
		}
	}
}

func TestVerifyingModesReadTheCABundle(t *testing.T) {
	path := caFile(t)
	for _, mode := range []string{"VERIFY_CA", "VERIFY_IDENTITY"} {
		o, err := parse(t, "--fe-ssl-mode="+mode, "--fe-ca-file="+path)
		if err != nil {
			t.Fatalf("%s with a CA bundle: %v", mode, err)
		}
		got, err := o.FETLS()
		if err != nil || got.RootCAs == nil || string(got.Mode) != mode {
			t.Errorf("%s: %+v, %v; want the mode with the bundle", mode, got, err)
		}
	}
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := parse(t, "--fe-ssl-mode=VERIFY_CA", "--fe-ca-file="+notPEM); err == nil || !strings.Contains(err.Error(), "--fe-ca-file") {
		t.Errorf("a file without a certificate: %v, want an error naming --fe-ca-file", err)
	}
}

func TestCABundleWithoutAVerifyingModeWarns(t *testing.T) {
	o := Default()
	o.FECAFile = caFile(t)
	warnings, err := o.Validate()
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "--fe-ca-file has no effect") {
		t.Errorf("warnings %q, want one saying --fe-ca-file has no effect", warnings)
	}
}

// One Secret for every cluster under a mode that does not verify which FE
// answers: the operator starts (the upstream's default is PREFERRED), and
// says loudly what it risks. One Secret per cluster, or VERIFY_IDENTITY,
// says nothing.
func TestASharedCredentialWithoutVerifyIdentityWarns(t *testing.T) {
	ca := caFile(t)
	for _, tc := range []struct {
		args []string
		warn bool
	}{
		{[]string{"--fe-credentials-secret=ops/operator"}, true},
		{[]string{"--fe-credentials-secret=ops/operator", "--fe-ssl-mode=REQUIRED"}, true},
		{[]string{"--fe-credentials-secret=ops/operator", "--fe-ssl-mode=VERIFY_CA", "--fe-ca-file=" + ca}, true},
		{[]string{"--fe-credentials-secret=ops/operator", "--fe-ssl-mode=VERIFY_IDENTITY", "--fe-ca-file=" + ca}, false},
		{[]string{"--fe-credentials-secret=operator"}, false}, // each cluster's own namespace
		{nil, false}, // root with each cluster's MYSQL_PWD, as the upstream
	} {
		o, err := parse(t, tc.args...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		warnings, err := o.Validate()
		if err != nil {
			t.Fatalf("%v: %v; the operator must start", tc.args, err)
		}
		warned := strings.Contains(strings.Join(warnings, "\n"), "SECURITY: --fe-credentials-secret")
		if warned != tc.warn {
			t.Errorf("%v: warnings %q; want the shared-credential warning: %v", tc.args, warnings, tc.warn)
		}
	}
}
