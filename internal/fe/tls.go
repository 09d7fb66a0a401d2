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
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// SSLMode is how the operator secures its MySQL connections to FE: the
// upstream's --fe-ssl-mode values (DISABLED, PREFERRED, REQUIRED) and the two
// verifying modes of the MySQL client's --ssl-mode beyond them.
type SSLMode string

// The modes. Each maps onto go-sql-driver's own TLS settings (Config.apply).
const (
	// SSLDisabled is plaintext always (tls=false).
	SSLDisabled SSLMode = "DISABLED"
	// SSLPreferred is TLS when FE offers it in its handshake, plaintext when
	// it does not; FE's certificate is not checked (tls=preferred). A TLS
	// handshake that fails is an error, not a fall-back.
	SSLPreferred SSLMode = "PREFERRED"
	// SSLRequired is TLS always, FE's certificate not checked (tls=skip-verify).
	SSLRequired SSLMode = "REQUIRED"
	// SSLVerifyCA is TLS always, FE's certificate chained to the CA bundle;
	// any name.
	SSLVerifyCA SSLMode = "VERIFY_CA"
	// SSLVerifyIdentity is SSLVerifyCA and the certificate names the host
	// dialled (a DNS name in its subject alternative names).
	SSLVerifyIdentity SSLMode = "VERIFY_IDENTITY"
)

// DefaultSSLMode is the upstream's default.
const DefaultSSLMode = SSLPreferred

// SSLModes lists every mode, in order of strength.
var SSLModes = []SSLMode{SSLDisabled, SSLPreferred, SSLRequired, SSLVerifyCA, SSLVerifyIdentity}

// ParseSSLMode reads a mode, ignoring case as the upstream does.
func ParseSSLMode(s string) (SSLMode, error) {
	for _, m := range SSLModes {
		if strings.EqualFold(strings.TrimSpace(s), string(m)) {
			return m, nil
		}
	}
	names := make([]string, len(SSLModes))
	for i, m := range SSLModes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("%q is not one of %s", s, strings.Join(names, ", "))
}

// NeedsTLS is true for the modes that never speak plaintext: REQUIRED and
// the verifying ones.
func (m SSLMode) NeedsTLS() bool { return m == SSLRequired || m.Verifies() }

// Strength orders the modes: DISABLED 0 to VERIFY_IDENTITY 4; an unknown
// mode is -1.
func (m SSLMode) Strength() int {
	if m == "" {
		m = DefaultSSLMode
	}
	for i, k := range SSLModes {
		if k == m {
			return i
		}
	}
	return -1
}

// Verifies is true for the modes that check FE's certificate against a CA bundle.
func (m SSLMode) Verifies() bool { return m == SSLVerifyCA || m == SSLVerifyIdentity }

// TLS is the transport security of the operator's connections to FE. The
// zero value is DefaultSSLMode without a CA bundle.
type TLS struct {
	Mode SSLMode
	// RootCAs is the CA bundle FE's certificate must chain to under
	// VERIFY_CA and VERIFY_IDENTITY; a verifying mode without one fails
	// every connection.
	RootCAs *x509.CertPool
}

// LoadCABundle reads a PEM file of one or more CA certificates.
func LoadCABundle(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}

// ErrNoCABundle is returned for a verifying mode without a CA bundle.
var ErrNoCABundle = errors.New("FE's certificate cannot be verified: no CA bundle (--fe-ca-file)")

// apply sets cfg to reach FE at addr (host:port, the name VERIFY_IDENTITY
// checks) through wire, which speaks the mode's TLS itself so that it can
// read the login inside it (wire.go); the driver is told tls=false. The
// upstream's three modes keep the driver's meaning: PREFERRED is TLS when
// FE offers it, certificate not checked; REQUIRED always TLS, certificate
// not checked.
func (t TLS) apply(cfg *mysql.Config, addr string, maxBytes int64) error {
	w, err := t.wire(addr)
	if err != nil {
		return err
	}
	w.maxBytes = maxBytes
	cfg.TLSConfig = "false"
	cfg.TLS = nil
	cfg.DialFunc = w.dial
	return nil
}

// wire is the mode's TLS as wire speaks it.
func (t TLS) wire(addr string) (wire, error) {
	mode := t.Mode
	if mode == "" {
		mode = DefaultSSLMode
	}
	switch mode {
	case SSLDisabled:
		return wire{}, nil
	case SSLPreferred:
		return wire{tls: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}}, nil //nolint:gosec // PREFERRED checks no certificate, as the upstream's
	case SSLRequired:
		return wire{tls: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}, needTLS: true}, nil //nolint:gosec // REQUIRED checks no certificate, as the upstream's
	case SSLVerifyCA, SSLVerifyIdentity:
		if t.RootCAs == nil {
			return wire{}, ErrNoCABundle
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		return wire{tls: verifyingConfig(mode, t.RootCAs, host), needTLS: true}, nil
	}
	return wire{}, fmt.Errorf("unknown FE SSL mode %q", mode)
}

// verifyingConfig checks FE's certificate chain against roots, and under
// VERIFY_IDENTITY its name too (crypto/tls's own verification). VERIFY_CA
// turns the built-in check off, as it would also check the name, and runs
// the same chain verification (x509.Certificate.Verify) without a name.
func verifyingConfig(mode SSLMode, roots *x509.CertPool, host string) *tls.Config {
	if mode == SSLVerifyIdentity {
		return &tls.Config{RootCAs: roots, ServerName: host, MinVersion: tls.VersionTLS12}
	}
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true, // the chain is verified in VerifyConnection; only the name is not (VERIFY_CA)
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("FE sent no certificate")
			}
			opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
			for _, c := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(opts)
			return err
		},
	}
}

// ErrorSecureTransportRequired is FE's error number for a plaintext
// connection refused under ssl_force_secure_transport (ErrorCode.java
// ERR_SECURE_TRANSPORT_REQUIRED, 5205 / HY000, "Connections using insecure
// transport are prohibited"; sent by MysqlProto.negotiate).
const ErrorSecureTransportRequired = 5205

// InsecureTransportRefused is true when FE refused a plaintext connection:
// it requires TLS (ssl_force_secure_transport) and the mode is DISABLED, or
// PREFERRED against an FE that offers no TLS yet requires it.
func InsecureTransportRefused(err error) bool {
	var refused *mysql.MySQLError
	return errors.As(err, &refused) && refused.Number == ErrorSecureTransportRequired
}

// TLSFailed is true when a connection failed for TLS: a mode that requires
// TLS against an FE that offers none, a handshake FE and the operator could
// not agree on, or a certificate that does not verify (unknown CA, wrong
// name, expired).
func TLSFailed(err error) bool {
	if errors.Is(err, mysql.ErrNoTLS) {
		return true
	}
	var (
		unknownCA   x509.UnknownAuthorityError
		wrongName   x509.HostnameError
		invalid     x509.CertificateInvalidError
		verifyErr   *tls.CertificateVerificationError
		recordErr   tls.RecordHeaderError
		alert       tls.AlertError
		systemRoots x509.SystemRootsError
	)
	if errors.As(err, &unknownCA) || errors.As(err, &wrongName) || errors.As(err, &invalid) ||
		errors.As(err, &verifyErr) || errors.As(err, &recordErr) || errors.As(err, &alert) ||
		errors.As(err, &systemRoots) || errors.Is(err, ErrNoCABundle) {
		return true
	}
	// An alert FE sent during the handshake (crypto/tls: "remote error: tls: ...").
	var remote *net.OpError
	return errors.As(err, &remote) && remote.Op == "remote error" && remote.Err != nil && strings.HasPrefix(remote.Err.Error(), "tls: ")
}
