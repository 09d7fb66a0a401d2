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

// Package silentfe is, for tests, an FE whose port accepts connections and
// never answers: a process that hangs, or a port a proxy blackholes.
package silentfe

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// FE is a listener that holds every connection open and says nothing
// until the test ends.
type FE struct {
	ln       net.Listener
	accepted atomic.Int32
}

// Start listens on a free loopback port until t ends.
func Start(t testing.TB) *FE {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &FE{ln: ln}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return f
}

// Address is host:port.
func (f *FE) Address() string { return f.ln.Addr().String() }

// Accepted counts the connections made so far.
func (f *FE) Accepted() int { return int(f.accepted.Load()) }
