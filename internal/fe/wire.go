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
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The operator's connection to FE trusts nothing FE chooses (docs/security.md,
// "What a cluster's author can do").
//
// A tenant controls its own FE (spec.image, fe.conf), and FE chooses the
// login: its greeting names an auth plugin, and it may ask for another
// later. go-sql-driver/mysql answers whatever it is asked. Under
// caching_sha2_password it sends the password in clear inside TLS when FE
// asks for "full authentication", or encrypted to the RSA key FE hands it
// without TLS; under sha256_password the same; a switch to either does the
// same. Its Config can refuse mysql_clear_password and mysql_old_password
// (AllowCleartextPasswords, AllowOldPasswords: off), but has no setting
// that refuses caching_sha2_password, sha256_password or client_ed25519
// (v1.10.2: mysqlConn.auth, handleAuthResult).
//
// So the driver talks to FE through wire, a net.Conn (Config.DialFunc)
// that reads the login as it passes: it aborts, before the driver sees
// the packet, on a greeting or an auth switch naming any plugin but
// mysql_native_password (the plugin of FE's native users:
// MysqlHandshakePacket's AUTH_PLUGIN_NAME), and on any "more
// authentication data" packet, which native-password logins never send.
// The driver then only ever computes the native scramble, which proves
// knowledge of the password without carrying it. To read the login
// inside TLS, wire does the TLS itself (the driver is told tls=false):
// it sends the SSL request the driver would have sent, and shifts the
// login's sequence numbers by one. After the login it counts FE's bytes,
// by packet header, against the connection's budget (AnswerTooLargeError).

// NativePassword is the only auth plugin the operator logs in with.
const NativePassword = "mysql_native_password"

// Capability flags of the MySQL protocol this file reads or sets.
const (
	capSSL        = 0x00000800
	capPluginAuth = 0x00080000
)

// Packets of the login phase, by their first byte.
const (
	pktOK       = 0x00
	pktMoreData = 0x01
	pktSwitch   = 0xfe
	pktErr      = 0xff
)

// maxLoginPacket bounds a packet of the login: FE's greeting is under 100
// bytes, an auth switch under 50.
const maxLoginPacket = 4 << 10

// AuthPluginError is FE asking for a login other than mysql_native_password.
// The operator sent no password, nor anything derived from it but what
// native logins send.
type AuthPluginError struct {
	// Plugin is the plugin FE named; "" for a "more data" packet.
	Plugin string
	// Where is the packet: "greeting", "auth switch" or "more data".
	Where string
}

func (e *AuthPluginError) Error() string {
	if e.Plugin == "" {
		return fmt.Sprintf("FE asked for more authentication data (%s packet), which a %s login never does; "+
			"the operator stopped the login and sent no password", e.Where, NativePassword)
	}
	return fmt.Sprintf("FE asked for the %s login in its %s; the operator logs in with %s only, stopped the login and sent no password",
		e.Plugin, e.Where, NativePassword)
}

// AnswerTooLargeError is FE answering more than the operator reads of one
// cluster's FE at once: more rows than the cluster's pods could explain,
// or more bytes. Nothing is decided on the part that was read.
type AnswerTooLargeError struct {
	// What was read: a statement, "the connection" or an HTTP path.
	What string
	// Limit is the cap, Unit its unit ("rows" or "bytes").
	Limit int64
	Unit  string
}

func (e *AnswerTooLargeError) Error() string {
	return fmt.Sprintf("FE's answer to %s is larger than %d %s, the most the operator reads of this cluster; it read no further and decided nothing on it",
		e.What, e.Limit, e.Unit)
}

// InvalidAnswerError is an answer FE gave that does not read as FE's: a
// column the operator needs is missing, or a number is not one. Nothing is
// decided on it.
type InvalidAnswerError struct{ Detail string }

func (e *InvalidAnswerError) Error() string { return e.Detail }

// wire is how Client's connections reach FE: the TLS to speak (nil: none),
// whether an FE that offers none is refused, and the bytes FE may send
// after the login.
type wire struct {
	tls      *tls.Config
	needTLS  bool
	maxBytes int64
}

// dialedKey is the context key of the *dialed of one connection attempt.
type dialedKey struct{}

// dialed lets once find the connection a Connect made, to tell why it failed.
type dialed struct{ conn *wireConn }

// why is the refusal that ended conn, if any: the driver reports it only
// as "invalid connection".
func (d *dialed) why() error {
	if d == nil || d.conn == nil {
		return nil
	}
	return d.conn.err
}

// dial is the driver's DialFunc.
func (w wire) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	raw, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	// The driver sets a deadline before each read and write, and closes
	// the connection when the connect times out: a TLS handshake or an FE
	// that stalls mid-login costs no more than it did without wire.
	c := &wireConn{raw: raw, cur: raw, w: w, left: w.maxBytes}
	if h, ok := ctx.Value(dialedKey{}).(*dialed); ok {
		h.conn = c
	}
	return c, nil
}

type stage int

const (
	stageGreeting stage = iota // FE's greeting is next
	stageResponse              // the driver's handshake response is next
	stageAuth                  // FE's answers to the login
	stageOpen                  // logged in (or refused): bytes pass, counted
)

// wireConn is one connection as wire sees it.
type wireConn struct {
	raw net.Conn // the TCP connection
	cur net.Conn // raw, or the TLS connection over it
	// in reads cur once logged in; the login reads cur packet by packet,
	// so that nothing of a TLS handshake is read ahead.
	in *bufio.Reader
	w  wire

	stage  stage
	useTLS bool
	// shift is how far FE's sequence numbers run ahead of the driver's:
	// 1 once the SSL request, which the driver did not send, went.
	shift byte
	// pending holds FE's bytes not yet read by the driver; wbuf the
	// driver's bytes of a packet not yet complete.
	pending, wbuf []byte
	// inPacket is what is left of the payload of FE's current packet once
	// logged in; left the bytes FE may still send (maxBytes > 0).
	inPacket int
	left     int64
	// err is why wire ended the connection (a refused plugin, a TLS
	// failure, an answer too large); every later call returns it.
	err error
}

func (c *wireConn) fail(err error) error {
	if c.err == nil {
		c.err = err
		_ = c.raw.Close()
	}
	return c.err
}

func (c *wireConn) Read(b []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if len(c.pending) == 0 {
		if c.stage == stageOpen {
			return c.readOpen(b)
		}
		if err := c.readLoginPacket(); err != nil {
			return 0, err
		}
	}
	n := copy(b, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// readOpen passes FE's bytes after the login, reading each packet's
// header first to count it against the budget before the driver sizes
// a buffer for it.
func (c *wireConn) readOpen(b []byte) (int, error) {
	if c.inPacket == 0 {
		var hdr [4]byte
		if _, err := io.ReadFull(c.in, hdr[:]); err != nil {
			return 0, err
		}
		n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
		if c.w.maxBytes > 0 {
			if int64(n)+4 > c.left {
				return 0, c.fail(&AnswerTooLargeError{What: "one connection's statements", Limit: c.w.maxBytes, Unit: "bytes"})
			}
			c.left -= int64(n) + 4
		}
		c.inPacket = n
		c.pending = append(c.pending[:0], hdr[:]...)
		k := copy(b, c.pending)
		c.pending = c.pending[k:]
		return k, nil
	}
	k, err := c.in.Read(b[:min(len(b), c.inPacket)])
	c.inPacket -= k
	return k, err
}

// readLoginPacket reads FE's next packet of the login, checks it and
// queues it for the driver with the sequence number it expects.
func (c *wireConn) readLoginPacket() error {
	var hdr [4]byte
	if _, err := io.ReadFull(c.cur, hdr[:]); err != nil {
		return err
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	if n > maxLoginPacket {
		return c.fail(&AnswerTooLargeError{What: "a packet of the login", Limit: maxLoginPacket, Unit: "bytes"})
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(c.cur, p); err != nil {
		return err
	}
	var err error
	switch c.stage {
	case stageGreeting:
		err = c.greeting(p)
	case stageAuth:
		err = c.loginAnswer(p)
	default:
		err = errors.New("FE spoke before the operator answered its greeting")
	}
	if err != nil {
		return c.fail(err)
	}
	hdr[3] -= c.shift
	c.pending = append(append(c.pending[:0], hdr[:]...), p...)
	if c.stage == stageOpen {
		c.in = bufio.NewReader(c.cur)
	}
	return nil
}

// greeting checks FE's handshake (protocol 10): the plugin it names, and
// whether it offers TLS.
func (c *wireConn) greeting(p []byte) error {
	if len(p) > 0 && p[0] == pktErr {
		c.stage = stageOpen // FE refused at once (too many connections): the driver reads why
		return nil
	}
	if len(p) == 0 || p[0] != 10 {
		return errors.New("FE's greeting is not a MySQL protocol 10 handshake")
	}
	malformed := errors.New("FE's greeting is malformed")
	i := 1
	end := indexZero(p, i)
	if end < 0 {
		return malformed
	}
	i = end + 1 + 4 + 8 + 1 // server version, connection id, auth data part 1, filler
	if len(p) < i+2 {
		return malformed
	}
	caps := uint32(binary.LittleEndian.Uint16(p[i:]))
	i += 2
	plugin := ""
	if len(p) >= i+16 {
		caps |= uint32(binary.LittleEndian.Uint16(p[i+3:])) << 16
		authLen := int(p[i+5])
		i += 16 // charset, status, capabilities upper, auth data length, reserved
		i += max(13, authLen-8)
		if caps&capPluginAuth != 0 && i < len(p) {
			plugin = string(p[i:])
			if end := indexZero(p, i); end >= 0 {
				plugin = string(p[i:end])
			}
		}
	}
	if plugin != "" && plugin != NativePassword {
		return &AuthPluginError{Plugin: plugin, Where: "greeting"}
	}
	if c.w.tls != nil {
		switch {
		case caps&capSSL != 0:
			c.useTLS = true
		case c.w.needTLS:
			return mysql.ErrNoTLS
		}
	}
	c.stage = stageResponse
	return nil
}

// loginAnswer checks FE's answer to the login: OK or an error end it; an
// auth switch must name mysql_native_password; nothing else is taken.
func (c *wireConn) loginAnswer(p []byte) error {
	if len(p) == 0 {
		return errors.New("FE sent an empty packet during the login")
	}
	switch p[0] {
	case pktOK, pktErr:
		c.stage = stageOpen
	case pktSwitch:
		if len(p) == 1 {
			return &AuthPluginError{Plugin: "mysql_old_password", Where: "auth switch"}
		}
		plugin := string(p[1:])
		if end := indexZero(p, 1); end >= 0 {
			plugin = string(p[1:end])
		}
		if plugin != NativePassword {
			return &AuthPluginError{Plugin: plugin, Where: "auth switch"}
		}
	case pktMoreData:
		return &AuthPluginError{Where: "more data"}
	}
	return nil
}

func (c *wireConn) Write(b []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.stage == stageOpen && len(c.wbuf) == 0 {
		return c.cur.Write(b)
	}
	c.wbuf = append(c.wbuf, b...)
	for len(c.wbuf) >= 4 {
		n := int(c.wbuf[0]) | int(c.wbuf[1])<<8 | int(c.wbuf[2])<<16
		if len(c.wbuf) < 4+n {
			break
		}
		pkt := c.wbuf[:4+n]
		if err := c.writeLoginPacket(pkt); err != nil {
			return 0, err
		}
		c.wbuf = c.wbuf[4+n:]
	}
	if len(c.wbuf) == 0 {
		c.wbuf = nil
	}
	return len(b), nil
}

// writeLoginPacket sends one of the driver's packets, first securing the
// connection when the handshake response is due and TLS is spoken.
func (c *wireConn) writeLoginPacket(pkt []byte) error {
	if c.stage == stageResponse {
		c.stage = stageAuth
		if c.useTLS {
			if len(pkt) < 4+32 {
				return c.fail(errors.New("the driver's handshake response is too short to ask for TLS"))
			}
			binary.LittleEndian.PutUint32(pkt[4:], binary.LittleEndian.Uint32(pkt[4:])|capSSL)
			req := make([]byte, 4+32)
			copy(req[4:], pkt[4:4+32])
			req[0], req[3] = 32, pkt[3]
			if _, err := c.raw.Write(req); err != nil {
				return c.fail(err)
			}
			tc := tls.Client(c.raw, c.w.tls)
			if err := tc.Handshake(); err != nil {
				return c.fail(err)
			}
			c.cur, c.shift = tc, 1
		}
	}
	pkt[3] += c.shift
	_, err := c.cur.Write(pkt)
	return err
}

func (c *wireConn) Close() error {
	if c.cur != c.raw {
		_ = c.cur.Close()
	}
	return c.raw.Close()
}

func (c *wireConn) LocalAddr() net.Addr                { return c.raw.LocalAddr() }
func (c *wireConn) RemoteAddr() net.Addr               { return c.raw.RemoteAddr() }
func (c *wireConn) SetDeadline(t time.Time) error      { return c.raw.SetDeadline(t) }
func (c *wireConn) SetReadDeadline(t time.Time) error  { return c.raw.SetReadDeadline(t) }
func (c *wireConn) SetWriteDeadline(t time.Time) error { return c.raw.SetWriteDeadline(t) }

func indexZero(p []byte, from int) int {
	for i := from; i < len(p); i++ {
		if p[i] == 0 {
			return i
		}
	}
	return -1
}
