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

package testutil

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	if body, err := Fetch(context.Background(), nil, srv.URL, "tok"); err != nil || string(body) != "ok" {
		t.Errorf("Fetch with the token = %q, %v; want ok", body, err)
	}
	if _, err := Fetch(context.Background(), nil, srv.URL, ""); err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "who are you") {
		t.Errorf("Fetch without the token: error %v, want one with the status and the body", err)
	}
}

func TestWaitHTTP(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		switch n := calls.Add(1); {
		case n < 3:
			http.Error(w, "starting", http.StatusServiceUnavailable)
		case n < 5:
			_, _ = w.Write([]byte("partial"))
		default:
			_, _ = w.Write([]byte("complete"))
		}
	}))
	defer srv.Close()
	fast := HTTPWait{Interval: time.Millisecond}

	t.Run("until the condition holds", func(t *testing.T) {
		w := fast
		w.Until = func(b []byte) bool { return string(b) == "complete" }
		body, err := WaitHTTP(context.Background(), srv.URL, w)
		if err != nil || string(body) != "complete" || calls.Load() != 5 {
			t.Errorf("WaitHTTP = %q, %v after %d calls; want complete after 5", body, err, calls.Load())
		}
	})
	t.Run("gives up when the context ends, with the last 200 body", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		w := fast
		w.Until = func([]byte) bool { return false }
		body, err := WaitHTTP(ctx, srv.URL, w)
		if !errors.Is(err, context.DeadlineExceeded) || string(body) != "complete" {
			t.Errorf("WaitHTTP = %q, %v; want the last body and a deadline error", body, err)
		}
	})
	t.Run("stops at once when aborted", func(t *testing.T) {
		gone := errors.New("the server exited")
		w := fast
		w.Abort = func() error { return gone }
		before := calls.Load()
		if _, err := WaitHTTP(context.Background(), srv.URL, w); !errors.Is(err, gone) || calls.Load() != before {
			t.Errorf("WaitHTTP = %v after %d more calls; want the abort error and none", err, calls.Load()-before)
		}
	})
}
