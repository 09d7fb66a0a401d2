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
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1" //nolint:gosec // the driver encrypts with OAEP over SHA-1; the fake FE decrypts the same
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// A hostile FE: the login tricks a tenant's own FE can play to get the
// operator's password, each answered as a real server of that plugin
// would. The fake records every packet it received, in the clear (inside
// TLS too), and every payload it could decrypt with its own RSA key.

// hostilePassword is the operator's password in these tests.
const hostilePassword = "op-secret-Pa55"

type trick struct {
	greeting string // the plugin the greeting names
	switchTo string // the plugin of an auth switch after the response; "" none
}

type fakeFE struct {
	t     *testing.T
	ln    net.Listener
	trick trick
	tls   bool // offer TLS in the greeting
	cert  tls.Certificate
	key   *rsa.PrivateKey

	// answer, when set, answers each query after a native login.
	answer func(p *pktConn, query string)

	mu       sync.Mutex
	received [][]byte // every packet's payload, in the clear
	opened   []string // what it decrypted with its RSA key
	done     chan struct{}
}

func newFakeFE(t *testing.T, tr trick, offerTLS bool) *fakeFE {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeFE{t: t, ln: ln, trick: tr, tls: offerTLS, cert: selfSigned(t), key: key, done: make(chan struct{})}
	t.Cleanup(func() { _ = ln.Close() })
	go f.serve()
	return f
}

func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hostile-fe"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"hostile-fe"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: k}
}

// pkt is one packet on the fake's side.
type pktConn struct {
	c   net.Conn
	seq byte
}

func (p *pktConn) read() ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(p.c, h[:]); err != nil {
		return nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	b := make([]byte, n)
	if _, err := io.ReadFull(p.c, b); err != nil {
		return nil, err
	}
	p.seq = h[3] + 1
	return b, nil
}

func (p *pktConn) write(b []byte) error {
	h := []byte{byte(len(b)), byte(len(b) >> 8), byte(len(b) >> 16), p.seq}
	p.seq++
	_, err := p.c.Write(append(h, b...))
	return err
}

var (
	nonce1 = []byte("abcdefgh")
	nonce2 = []byte("ijklmnopqrst")
	nonce  = append(append([]byte{}, nonce1...), nonce2...)
	// switchNonce is the auth switch's.
	switchNonce = []byte("ABCDEFGHIJKLMNOPQRST")
)

func (f *fakeFE) greeting() []byte {
	caps := uint32(0x1 | 0x200 | 0x2000 | 0x8000 | 0x80000) // long password, 4.1, transactions, secure connection, plugin auth
	if f.tls {
		caps |= 0x800
	}
	g := []byte{10}
	g = append(g, "8.0.33-hostile"...)
	g = append(g, 0, 1, 0, 0, 0)
	g = append(g, nonce1...)
	g = append(g, 0)
	g = binary.LittleEndian.AppendUint16(g, uint16(caps))
	g = append(g, 33, 2, 0)
	g = binary.LittleEndian.AppendUint16(g, uint16(caps>>16))
	g = append(g, byte(len(nonce)+1))
	g = append(g, make([]byte, 10)...)
	g = append(g, nonce2...)
	g = append(g, 0)
	g = append(g, f.trick.greeting...)
	return append(g, 0)
}

func (f *fakeFE) got(b []byte) {
	f.mu.Lock()
	f.received = append(f.received, append([]byte{}, b...))
	f.mu.Unlock()
}

// open decrypts what the driver encrypted to the fake's key, and undoes
// the XOR with either nonce.
func (f *fakeFE) open(b []byte) {
	plain, err := rsa.DecryptOAEP(sha1.New(), rand.Reader, f.key, b, nil) //nolint:gosec // as the driver encrypts
	if err != nil {
		return
	}
	for _, seed := range [][]byte{nonce, switchNonce} {
		out := make([]byte, len(plain))
		for i := range plain {
			out[i] = plain[i] ^ seed[i%len(seed)]
		}
		f.mu.Lock()
		f.opened = append(f.opened, string(out))
		f.mu.Unlock()
	}
}

func (f *fakeFE) pem() []byte {
	der, _ := x509.MarshalPKIXPublicKey(&f.key.PublicKey)
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

func (f *fakeFE) serve() {
	defer close(f.done)
	c, err := f.ln.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	p := &pktConn{c: c}
	if p.write(f.greeting()) != nil {
		return
	}
	resp, err := p.read()
	if err != nil {
		return
	}
	if len(resp) == 32 && binary.LittleEndian.Uint32(resp)&0x800 != 0 {
		f.got(resp)
		tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{f.cert}, MinVersion: tls.VersionTLS12})
		if tc.Handshake() != nil {
			return
		}
		p.c = tc
		if resp, err = p.read(); err != nil {
			return
		}
	}
	f.got(resp)
	plugin := f.trick.greeting
	if f.trick.switchTo != "" {
		plugin = f.trick.switchTo
		sw := append([]byte{0xfe}, plugin...)
		sw = append(append(append(sw, 0), switchNonce...), 0)
		if p.write(sw) != nil {
			return
		}
		if resp, err = p.read(); err != nil {
			return
		}
		f.got(resp)
	}
	f.harvest(p, plugin, resp)
	if p.write([]byte{0, 0, 0, 2, 0, 0, 0}) != nil || f.answer == nil {
		return
	}
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	for {
		p.seq = 0
		cmd, err := p.read()
		if err != nil || len(cmd) == 0 || cmd[0] != 0x03 {
			return
		}
		f.answer(p, string(cmd[1:]))
	}
}

// resultSet writes a text result set of the columns, with rows rows
// made by row (each value a column's), buffered.
func resultSet(p *pktConn, cols []string, rows int, row func(i int) []string) {
	bw := bufio.NewWriterSize(p.c, 64<<10)
	pc := &pktConn{c: writerConn{bw, p.c}, seq: p.seq}
	_ = pc.write([]byte{byte(len(cols))})
	for _, c := range cols {
		def := lenenc(nil, "def")
		def = lenenc(def, "")
		def = lenenc(def, "")
		def = lenenc(def, "")
		def = lenenc(def, c)
		def = lenenc(def, c)
		def = append(def, 0x0c, 33, 0, 0, 1, 0, 0, 0xfd, 0, 0, 0, 0, 0)
		_ = pc.write(def)
	}
	_ = pc.write([]byte{0xfe, 0, 0, 2, 0})
	for i := range rows {
		var r []byte
		for _, v := range row(i) {
			r = lenenc(r, v)
		}
		if pc.write(r) != nil {
			return
		}
	}
	_ = pc.write([]byte{0xfe, 0, 0, 2, 0})
	_ = bw.Flush()
}

type writerConn struct {
	w *bufio.Writer
	net.Conn
}

func (w writerConn) Write(b []byte) (int, error) { return w.w.Write(b) }

func lenenc(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 251:
		b = append(b, byte(n))
	case n < 1<<16:
		b = append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		b = append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	default:
		b = append(b, 0xfe)
		b = binary.LittleEndian.AppendUint64(b, uint64(n))
	}
	return append(b, s...)
}

// harvest plays the plugin's next steps after the client's first answer
// under it (resp), asking for the password as the plugin allows.
func (f *fakeFE) harvest(p *pktConn, plugin string, resp []byte) {
	switch plugin {
	case "caching_sha2_password":
		// "Perform full authentication": the client sends the password in
		// the clear under TLS, or asks for the key and encrypts to it.
		if p.write([]byte{0x01, 0x04}) != nil {
			return
		}
		b, err := p.read()
		if err != nil {
			return
		}
		f.got(b)
		if len(b) == 1 && b[0] == 0x02 {
			if p.write(append([]byte{0x01}, f.pem()...)) != nil {
				return
			}
			if b, err = p.read(); err != nil {
				return
			}
			f.got(b)
			f.open(b)
		}
	case "sha256_password":
		if len(resp) == 1 && resp[0] == 0x01 { // the client asks for the key
			if p.write(append([]byte{0x01}, f.pem()...)) != nil {
				return
			}
			b, err := p.read()
			if err != nil {
				return
			}
			f.got(b)
			f.open(b)
		}
	}
}

// leaked reports whether anything the fake holds shows the password.
func (f *fakeFE) leaked() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.received {
		if bytes.Contains(b, []byte(hostilePassword)) {
			return true
		}
	}
	for _, s := range f.opened {
		if strings.Contains(s, hostilePassword) {
			return true
		}
	}
	return false
}

func (f *fakeFE) report() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	for i, r := range f.received {
		fmt.Fprintf(&b, "\n    packet %d: %q", i+1, r)
	}
	for _, s := range f.opened {
		fmt.Fprintf(&b, "\n    decrypted with its key: %q", s)
	}
	if b.Len() == 0 {
		return " nothing"
	}
	return b.String()
}

func TestNoLoginTrickOfFEGetsThePassword(t *testing.T) {
	plugins := []string{"caching_sha2_password", "sha256_password", "mysql_clear_password", "client_ed25519", "mysql_old_password", "dialog"}
	var tricks []trick
	for _, p := range plugins {
		tricks = append(tricks, trick{greeting: p}, trick{greeting: NativePassword, switchTo: p})
	}
	modes := []struct {
		mode     SSLMode
		offerTLS bool
	}{{SSLDisabled, false}, {SSLPreferred, true}, {SSLRequired, true}}
	for _, m := range modes {
		for _, tr := range tricks {
			name := string(m.mode) + "/greeting=" + tr.greeting
			if tr.switchTo != "" {
				name = string(m.mode) + "/switch=" + tr.switchTo
			}
			t.Run(name, func(t *testing.T) {
				f := newFakeFE(t, tr, m.offerTLS)
				c := &Client{Address: f.ln.Addr().String(), Password: hostilePassword, TLS: TLS{Mode: m.mode},
					Attempts: 1, DialTimeout: 3 * time.Second, ReadTimeout: 3 * time.Second}
				_, err := c.ShowBackends(context.Background())
				_ = f.ln.Close()
				<-f.done
				t.Logf("the hostile FE received:%s", f.report())
				if f.leaked() {
					t.Fatalf("the password left the process: the hostile FE holds %q (operator's error: %v)", hostilePassword, err)
				}
				var plugin *AuthPluginError
				if !errors.As(err, &plugin) {
					t.Fatalf("error %v, want an AuthPluginError", err)
				}
			})
		}
	}
}

// The native login, plaintext and inside TLS, still logs in: wire refuses
// only what the operator does not speak.
func TestNativeLoginPassesWire(t *testing.T) {
	for _, m := range []struct {
		mode     SSLMode
		offerTLS bool
	}{{SSLDisabled, false}, {SSLPreferred, false}, {SSLPreferred, true}, {SSLRequired, true}} {
		t.Run(string(m.mode), func(t *testing.T) {
			f := newFakeFE(t, trick{greeting: NativePassword}, m.offerTLS)
			h := &dialed{}
			cfg, err := (&Client{Address: f.ln.Addr().String(), Password: hostilePassword, TLS: TLS{Mode: m.mode}}).config()
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), dialedKey{}, h), 3*time.Second)
			defer cancel()
			conn, err := cfg.DialFunc(ctx, "tcp", cfg.Addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			drv := &driverSide{c: conn}
			if err := drv.login(); err != nil {
				t.Fatalf("login: %v (wire: %v)", err, h.why())
			}
			<-f.done
			if f.leaked() {
				t.Fatalf("the native login sent the password:%s", f.report())
			}
			tlsSeen := len(f.received) == 2
			if tlsSeen != m.offerTLS {
				t.Errorf("TLS spoken %v, want %v (FE offers it: %v):%s", tlsSeen, m.offerTLS, m.offerTLS, f.report())
			}
		})
	}
}

// driverSide speaks the driver's half of a native login, as the driver
// does with tls=false, to check wire's sequence numbers and TLS.
type driverSide struct{ c net.Conn }

func (d *driverSide) login() error {
	p := &pktConn{c: d.c}
	g, err := p.read()
	if err != nil {
		return err
	}
	if !bytes.Contains(g, []byte(NativePassword)) {
		return errors.New("greeting does not name the native plugin")
	}
	resp := binary.LittleEndian.AppendUint32(nil, 0x1|0x200|0x8000|0x80000)
	resp = append(resp, 0, 0, 0, 1, 33)
	resp = append(resp, make([]byte, 23)...)
	resp = append(resp, "root"...)
	resp = append(resp, 0, 20)
	resp = append(resp, scrambleNative(nonce, hostilePassword)...)
	resp = append(resp, NativePassword...)
	resp = append(resp, 0)
	if err := p.write(resp); err != nil {
		return err
	}
	ok, err := p.read()
	if err != nil {
		return err
	}
	if p.seq != 3 || len(ok) == 0 || ok[0] != 0 {
		return errors.New("the login's answer is not OK with sequence number 2")
	}
	return nil
}

func scrambleNative(nonce []byte, pw string) []byte {
	h1 := sha1.Sum([]byte(pw)) //nolint:gosec // the native plugin's own hash
	h2 := sha1.Sum(h1[:])      //nolint:gosec // the native plugin's own hash
	h := sha1.New()            //nolint:gosec // the native plugin's own hash
	h.Write(nonce)
	h.Write(h2[:])
	out := h.Sum(nil)
	for i := range out {
		out[i] ^= h1[i]
	}
	return out
}
