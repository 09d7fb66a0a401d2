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
	"net"
	"strconv"
)

// Target is one cluster's FE, reached through its Service, or one FE of
// it when Host is set.
type Target struct {
	Namespace, Service  string
	QueryPort, HTTPPort int32
	// Host is one FE's own host as FE lists it (the IP column of SHOW
	// FRONTENDS: an IP, or the pod's FQDN); "" is the Service.
	Host string
}

// Resolver turns a Target into the MySQL address (host:port) and HTTP base
// URL to dial. The operator uses DNS; tests point it at a stand-in.
type Resolver func(Target) (queryAddress, httpURL string)

// DNS reaches FE through its Service's DNS name, <service>.<namespace>.
func DNS(t Target) (string, string) {
	host := t.Service + "." + t.Namespace
	if t.Host != "" {
		host = t.Host
	}
	return net.JoinHostPort(host, strconv.Itoa(int(t.QueryPort))), "http://" + net.JoinHostPort(host, strconv.Itoa(int(t.HTTPPort)))
}
