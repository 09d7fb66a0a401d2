package fe

import (
	"net"
	"strconv"
)

// Target is one cluster's FE, reached through its Service.
type Target struct {
	Namespace, Service  string
	QueryPort, HTTPPort int32
}

// Resolver turns a Target into the MySQL address (host:port) and HTTP base
// URL to dial. The operator uses DNS; tests point it at a stand-in.
type Resolver func(Target) (queryAddress, httpURL string)

// DNS reaches FE through its Service's DNS name, <service>.<namespace>.
func DNS(t Target) (string, string) {
	host := t.Service + "." + t.Namespace
	return net.JoinHostPort(host, strconv.Itoa(int(t.QueryPort))), "http://" + net.JoinHostPort(host, strconv.Itoa(int(t.HTTPPort)))
}
