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

package simstarrocks

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/mysql"
)

// FE's SSL (docs.starrocks.io, "SSL Authentication": from v3.4.1, fe.conf
// ssl_keystore_location, ssl_keystore_password, ssl_key_password, and
// ssl_force_secure_transport, default false). With a keystore, FE's
// handshake offers SSL (MysqlProto.negotiate: new
// MysqlHandshakePacket(connectionId, SSLContextLoader.getSslContext() !=
// null)) and a client that asks switches to TLS before it authenticates.
//
// ssl_force_secure_transport: a client whose first handshake response does
// not ask for SSL is answered ERR_SECURE_TRANSPORT_REQUIRED, 5205 / HY000,
// "Connections using insecure transport are prohibited"
// (common/ErrorCode.java; MysqlProto.negotiate, before the capability check
// and authentication). FE exempts a client whose remote IP contains
// 127.0.0.1 (MysqlProto.isRemoteIPLocalhost); the simulation does not: it
// stands for an FE pod the operator reaches over the network, never from
// FE's own host, although the test dials it on 127.0.0.1.

// errInsecureTransport is FE's 5205.
func errInsecureTransport() error {
	return mysql.NewSQLError(5205, "HY000", "Connections using insecure transport are prohibited")
}

// transportCheck wraps the auth method: it refuses a plaintext client under
// ForceSecureTransport before any password check, as FE does, and counts
// how each client that logged in came.
type transportCheck struct {
	mysql.AuthMethod
	s *StarRocks
}

func (m transportCheck) HandleAuthPluginData(c *mysql.Conn, user string, serverData, clientData []byte, addr net.Addr) (mysql.Getter, error) {
	secure := c.TLSEnabled()
	if m.s.opts.ForceSecureTransport && !secure {
		return nil, errInsecureTransport()
	}
	g, err := m.AuthMethod.HandleAuthPluginData(c, user, serverData, clientData, addr)
	if err == nil {
		m.s.mu.Lock()
		if secure {
			m.s.tlsLogins++
		} else {
			m.s.plainLogins++
		}
		m.s.mu.Unlock()
	}
	return g, err
}

// LoginsByTransport counts the logins that came over TLS and in plaintext.
func (s *StarRocks) LoginsByTransport() (overTLS, plaintext int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tlsLogins, s.plainLogins
}

// CA is a certificate authority made for one test, in memory: keys are
// never written to disk or committed.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

// NewCA makes a self-signed CA valid for an hour.
func NewCA(t testing.TB) *CA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(t),
		Subject:               pkix.Name{CommonName: "simstarrocks test CA"},
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &CA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// PEM is the CA's certificate, for a CA bundle file.
func (ca *CA) PEM() []byte { return ca.pem }

// Pool is a certificate pool holding the CA alone.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// ServerTLS is FE's keystore: a server certificate the CA signed for the
// given DNS names and IP addresses (strings that parse as IPs).
func (ca *CA) ServerTLS(t testing.TB, names ...string) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(t),
		Subject:      pkix.Name{CommonName: "simstarrocks FE"},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

func serial(t testing.TB) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
