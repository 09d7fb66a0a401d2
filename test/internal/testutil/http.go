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
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// FetchTimeout bounds one request of Fetch (and so one attempt of WaitHTTP).
const FetchTimeout = 5 * time.Second

// BearerGet GETs url with client (http.DefaultClient when nil), with token as
// a bearer token unless it is empty. The caller closes the body.
func BearerGet(ctx context.Context, client *http.Client, url, token string) (*http.Response, error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, http.NoBody)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return client.Do(req)
}

// Fetch GETs url as BearerGet does, within FetchTimeout, and returns the body
// of a 200 OK answer; any other answer is an error that gives the status and
// the start of the body.
func Fetch(ctx context.Context, client *http.Client, url, token string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	resp, err := BearerGet(ctx, client, url, token)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		if b := bytes.TrimSpace(body); len(b) > 0 {
			return nil, fmt.Errorf("GET %s: %s: %.200s", url, resp.Status, b)
		}
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return body, nil
}

// HTTPWait says how WaitHTTP asks and what it waits for. The zero value waits
// for any 200 OK, asking with http.DefaultClient every 200 ms.
type HTTPWait struct {
	// Client makes the requests; nil: http.DefaultClient.
	Client *http.Client
	// Token, unless empty, is sent as a bearer token.
	Token string
	// Until reports whether the body of a 200 OK answer is the one awaited;
	// nil: any 200 OK is.
	Until func(body []byte) bool
	// Abort, when set, is called before every attempt: an error from it ends
	// the wait with that error, as when the process that should answer exited.
	Abort func() error
	// Interval is the pause between attempts; zero: 200 ms.
	Interval time.Duration
}

// WaitHTTP GETs url (each attempt as Fetch does) until it answers 200 OK with
// a body that w.Until accepts, and returns that body. When ctx ends first it
// returns an error that wraps ctx.Err() and says what the last answer was,
// together with the last 200 OK body it saw (nil if none), so that the caller
// can say what that lacked. An error from w.Abort is returned as it is.
func WaitHTTP(ctx context.Context, url string, w HTTPWait) ([]byte, error) {
	interval := w.Interval
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	var lastOK []byte
	var last string
	for {
		if w.Abort != nil {
			if err := w.Abort(); err != nil {
				return lastOK, err
			}
		}
		body, err := Fetch(ctx, w.Client, url, w.Token)
		switch {
		case err != nil:
			last = err.Error()
		case w.Until == nil || w.Until(body):
			return body, nil
		default:
			lastOK, last = body, "200 OK, but not the answer awaited"
		}
		select {
		case <-ctx.Done():
			return lastOK, fmt.Errorf("waiting for %s: %w; last answer: %s", url, ctx.Err(), last)
		case <-time.After(interval):
		}
	}
}
