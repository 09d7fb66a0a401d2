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

// Package feaddress carries the simulated FEs' addresses from a crash test
// to the operator process it starts (test/cmd/simoperator), in one
// environment variable: the simulated FEs run in the test process, on
// ports the operator cannot find by DNS.
package feaddress

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"

	"github.com/srscale/starrocks-operator/internal/fe"
)

// Var is the environment variable that carries the addresses.
const Var = "SIMOPERATOR_FE"

// Address is where one cluster's FE Service answers.
type Address struct {
	// Query is host:port of the MySQL port.
	Query string `json:"query"`
	// HTTP is the HTTP port's base URL, http://host:port.
	HTTP string `json:"http"`
	// Hosts are the query ports of the FEs on their own addresses, by
	// host as FE lists it (simstarrocks.AddressOf); a host not here is
	// unreachable.
	Hosts map[string]string `json:"hosts,omitempty"`
}

// Addresses maps "<namespace>/<FE Service>" (fe.Target's Namespace and
// Service) to its FE.
type Addresses map[string]Address

// Key is the map key of the FE Service service in namespace.
func Key(namespace, service string) string { return namespace + "/" + service }

// Encode is the value of Var for a.
func (a Addresses) Encode() string {
	b, err := json.Marshal(a)
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return string(b)
}

// Parse reads Var's value; "" is no FE at all.
func Parse(s string) (Addresses, error) {
	a := Addresses{}
	if s == "" {
		return a, nil
	}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return nil, fmt.Errorf("not a JSON object of {\"query\": host:port, \"http\": URL} by namespace/service: %w", err)
	}
	for k, addr := range a {
		if _, _, err := net.SplitHostPort(addr.Query); err != nil {
			return nil, fmt.Errorf("%s: query address %q: %w", k, addr.Query, err)
		}
		if u, err := url.Parse(addr.HTTP); err != nil || u.Scheme != "http" || u.Host == "" {
			return nil, fmt.Errorf("%s: HTTP URL %q is not http://host:port", k, addr.HTTP)
		}
	}
	return a, nil
}

// unreachable is a port nothing listens on: a cluster whose FE is not
// given is unreachable, as one whose DNS name does not resolve.
const unreachable = "127.0.0.1:1"

// Resolver finds each cluster's FE in a, in place of fe.DNS.
func (a Addresses) Resolver() fe.Resolver {
	return func(t fe.Target) (string, string) {
		if addr, ok := a[Key(t.Namespace, t.Service)]; ok {
			if t.Host != "" {
				// One FE's own HTTP port: the simulated FE serves it under
				// /fe/<host> of its one HTTP server (simstarrocks.HTTPURLOf).
				query := addr.Hosts[t.Host]
				if query == "" {
					query = unreachable
				}
				return query, addr.HTTP + "/fe/" + t.Host
			}
			return addr.Query, addr.HTTP
		}
		return unreachable, "http://" + unreachable
	}
}
