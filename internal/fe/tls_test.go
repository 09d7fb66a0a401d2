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

package fe

import (
	"crypto/x509"
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

func TestEachSSLModeMapsOntoWiresTLS(t *testing.T) {
	roots := x509.NewCertPool()
	cases := []struct {
		mode              SSLMode
		tls, need, verify bool
		name              string
	}{
		{mode: "", tls: true},
		{mode: SSLDisabled},
		{mode: SSLPreferred, tls: true},
		{mode: SSLRequired, tls: true, need: true},
		{mode: SSLVerifyCA, tls: true, need: true, verify: true},
		{mode: SSLVerifyIdentity, tls: true, need: true, verify: true, name: "kube-starrocks-fe-service.starrocks"},
	}
	for _, tc := range cases {
		cfg := mysql.NewConfig()
		if err := (TLS{Mode: tc.mode, RootCAs: roots}).apply(cfg, "kube-starrocks-fe-service.starrocks:9030", 0); err != nil {
			t.Fatalf("%q: %v", tc.mode, err)
		}
		if cfg.TLSConfig != "false" || cfg.TLS != nil || cfg.DialFunc == nil {
			t.Errorf("%q: the driver speaks TLS itself (tls=%q) or dials without wire", tc.mode, cfg.TLSConfig)
		}
		w, _ := (TLS{Mode: tc.mode, RootCAs: roots}).wire("kube-starrocks-fe-service.starrocks:9030")
		if (w.tls != nil) != tc.tls || w.needTLS != tc.need {
			t.Errorf("%q: TLS %v, required %v; want %v, %v", tc.mode, w.tls != nil, w.needTLS, tc.tls, tc.need)
		}
		if w.tls != nil {
			if w.tls.ServerName != tc.name {
				t.Errorf("%q: checks the name %q, want %q", tc.mode, w.tls.ServerName, tc.name)
			}
			if verifies := !w.tls.InsecureSkipVerify || w.tls.VerifyConnection != nil; verifies != tc.verify {
				t.Errorf("%q: verifies %v, want %v", tc.mode, verifies, tc.verify)
			}
		}
	}
	if err := (TLS{Mode: SSLVerifyCA}).apply(mysql.NewConfig(), "a:1", 0); !errors.Is(err, ErrNoCABundle) || !TLSFailed(err) {
		t.Errorf("VERIFY_CA without a bundle: %v, want ErrNoCABundle, a TLS failure", err)
	}
}

func TestParseSSLModeNamesTheValidValues(t *testing.T) {
	if m, err := ParseSSLMode(" verify_ca "); err != nil || m != SSLVerifyCA {
		t.Errorf("verify_ca: %q, %v", m, err)
	}
	_, err := ParseSSLMode("TRUE")
	if err == nil || err.Error() != `"TRUE" is not one of DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY` {
		t.Errorf("TRUE: %v", err)
	}
}

func TestTransportFailuresAreToldApart(t *testing.T) {
	insecure := &mysql.MySQLError{Number: 5205, SQLState: [5]byte{'H', 'Y', '0', '0', '0'}, Message: "Connections using insecure transport are prohibited"}
	denied := &mysql.MySQLError{Number: 1045, Message: "Access denied for user 'root' (using password: YES)"}
	cases := []struct {
		err               error
		insecure, tlsFail bool
	}{
		{fmt.Errorf("SHOW FRONTENDS on FE a:1: %w", insecure), true, false},
		{fmt.Errorf("SHOW FRONTENDS on FE a:1: %w", mysql.ErrNoTLS), false, true},
		{x509.UnknownAuthorityError{}, false, true},
		{x509.HostnameError{}, false, true},
		{denied, false, false},
		{errors.New("dial tcp: connection refused"), false, false},
	}
	for _, tc := range cases {
		if got := InsecureTransportRefused(tc.err); got != tc.insecure {
			t.Errorf("InsecureTransportRefused(%v) = %v", tc.err, got)
		}
		if got := TLSFailed(tc.err); got != tc.tlsFail {
			t.Errorf("TLSFailed(%v) = %v", tc.err, got)
		}
	}
}
