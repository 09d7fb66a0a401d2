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

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockPath is per user: demos of different users on one machine don't share ports or files.
func lockPath() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("srdemo-%d.lock", os.Getuid()))
}

// acquireLock makes sure one demo runs at a time: the lock is an flock held for
// the process lifetime (the kernel drops it if the demo dies), and the file
// names the holder's PID for the message a second demo prints.
func acquireLock(path string) (release func(), err error) {
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, fmt.Errorf("opening the demo's lock file: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			holder, _ := os.ReadFile(path)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, alreadyRunning(strings.TrimSpace(string(holder)), path)
			}
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		// The previous holder removes the file on exit; if it did so between our
		// open and our lock, we hold a lock on a file nobody else will see: retry.
		if !samePath(f, path) {
			f.Close()
			continue
		}
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
		if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
			f.Close()
			return nil, err
		}
		return func() {
			_ = os.Remove(path)
			f.Close()
		}, nil
	}
}

func samePath(f *os.File, path string) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	named, err := os.Stat(path)
	return err == nil && os.SameFile(held, named)
}

func alreadyRunning(pid, path string) error {
	if pid == "" {
		return fmt.Errorf("another demo is already running (it holds %s); stop it with Ctrl-C in its terminal first", path)
	}
	return fmt.Errorf("another demo is already running (PID %s, holding %s); stop it with Ctrl-C in its terminal or `kill %s` first", pid, path, pid)
}
