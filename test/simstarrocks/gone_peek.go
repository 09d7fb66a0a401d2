//go:build linux || darwin

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
	"errors"
	"syscall"
	"time"

	"github.com/dolthub/vitess/go/mysql"
)

// clientGone tells, without taking anything from the connection, whether
// the client has closed it or is quitting (COM_QUIT waiting to be read): a
// client that gave up on a statement does one or the other. It pauses a
// little when the client is still there.
func clientGone(c *mysql.Conn) bool {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		time.Sleep(20 * time.Millisecond)
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	gone := false
	var buf [1]byte
	err = raw.Read(func(fd uintptr) bool {
		n, _, rerr := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case errors.Is(rerr, syscall.EAGAIN), errors.Is(rerr, syscall.EWOULDBLOCK):
			// Nothing sent, still connected.
		case rerr != nil, n == 0:
			gone = true // an error, or the client closed its side
		default:
			gone = true // it sent something mid-statement: quitting
		}
		return true
	})
	if err != nil || gone {
		return true
	}
	time.Sleep(20 * time.Millisecond)
	return false
}
