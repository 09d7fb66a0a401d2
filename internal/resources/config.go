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

package resources

import (
	"strconv"
	"strings"
)

// Config is what a builder needs beyond the spec.
type Config struct {
	// Content is the component's .conf file, read from the ConfigMap and key
	// named by the component's configMapInfo; empty when there is none. Its
	// ports override the defaults, and its hash rolls the pods when it changes.
	Content string

	// FEContent is the FE's .conf file (empty when there is none). BE and CN
	// read the FE's query port from it (FE_QUERY_PORT) and the FE proxy its HTTP
	// port, since all three reach the FE through the FE Service. FE ignores it.
	FEContent string
}

// portDef is one listening port of a component.
type portDef struct {
	key     string   // key in the .conf file, also the key of Ports' result
	aliases []string // other keys StarRocks accepts for the same port
	name    string   // name of the container and Service port
	port    int32    // default
}

// The ports of each component, in the order they appear on containers and Services.
var (
	fePortDefs = []portDef{
		{key: "http_port", name: "http", port: 8030},
		{key: "rpc_port", name: "rpc", port: 9020},
		{key: "query_port", name: "query", port: 9030},
		{key: "edit_log_port", name: "edit-log", port: 9010},
	}
	// be_http_port is the newer name of webserver_port (StarRocks 3.x).
	bePortDefs = []portDef{
		{key: "be_port", name: "be", port: 9060},
		{key: "webserver_port", aliases: []string{"be_http_port"}, name: "webserver", port: 8040},
		{key: "heartbeat_service_port", name: "heartbeat", port: 9050},
		{key: "brpc_port", name: "brpc", port: 8060},
	}
	// Newer cn.conf files call the thrift port be_port, as BE does.
	cnPortDefs = []portDef{
		{key: "thrift_port", aliases: []string{"be_port"}, name: "thrift", port: 9060},
		{key: "webserver_port", aliases: []string{"be_http_port"}, name: "webserver", port: 8040},
		{key: "heartbeat_service_port", name: "heartbeat", port: 9050},
		{key: "brpc_port", name: "brpc", port: 8060},
	}
)

// The port names the builders look up.
const (
	fePortHTTP      = "http"
	fePortQuery     = "query"
	portWebserver   = "webserver"
	portHeartbeat   = "heartbeat"
	feProxyPortName = "http-port"
	feProxyPort     = int32(8080)
)

func portDefs(c Component) []portDef {
	switch c {
	case ComponentFE:
		return fePortDefs
	case ComponentBE:
		return bePortDefs
	case ComponentCN:
		return cnPortDefs
	}
	return nil
}

// namedPort is a port's name and effective number.
type namedPort struct {
	name string
	port int32
}

// effectivePorts are a component's ports, in portDefs order, with the values
// of the .conf content overriding the defaults.
func effectivePorts(c Component, content string) []namedPort {
	defs := portDefs(c)
	values := parseConf(content)
	out := make([]namedPort, 0, len(defs))
	for _, d := range defs {
		p := namedPort{name: d.name, port: d.port}
		// The key set last in the file wins, as StarRocks reads it.
		best := -1
		for _, k := range append([]string{d.key}, d.aliases...) {
			if v, ok := values[k]; ok && v.line > best {
				best, p.port = v.line, v.port
			}
		}
		out = append(out, p)
	}
	return out
}

// portNamed is the number of the port called name, or 0.
func portNamed(ports []namedPort, name string) int32 {
	for _, p := range ports {
		if p.name == name {
			return p.port
		}
	}
	return 0
}

// Ports are a component's effective ports, keyed by their .conf keys (for FE
// http_port, rpc_port, query_port, edit_log_port; for BE be_port,
// webserver_port, heartbeat_service_port, brpc_port; for CN thrift_port,
// webserver_port, heartbeat_service_port, brpc_port): the defaults, overridden by
// `key = value` lines of cfg.Content (aliases such as be_http_port count for
// their canonical key). The FE proxy has no .conf: its result is
// {"http_port": 8080}.
func Ports(c Component, cfg Config) map[string]int32 {
	if c == ComponentFEProxy {
		return map[string]int32{"http_port": feProxyPort}
	}
	defs := portDefs(c)
	if defs == nil {
		return nil
	}
	ports := effectivePorts(c, cfg.Content)
	out := make(map[string]int32, len(defs))
	for i, d := range defs {
		out[d.key] = ports[i].port
	}
	return out
}

// confPort is a port value read from a .conf file and the line it was on.
type confPort struct {
	port int32
	line int
}

// parseConf reads the `key = value` lines of a .conf file whose value is a
// valid port number. Comments, blank lines, quotes around the value and
// non-numeric values are ignored; a key set twice keeps its last value.
func parseConf(content string) map[string]confPort {
	out := map[string]confPort{}
	for i, line := range strings.Split(content, "\n") {
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		value = strings.Trim(strings.TrimSpace(value), `"'`)
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 32)
		if key == "" || err != nil || n < 1 || n > 65535 {
			continue
		}
		out[key] = confPort{port: int32(n), line: i}
	}
	return out
}

// configHash is the value of ConfigHashAnnotation for a .conf content.
func configHash(content string) string {
	return shortHash(content)
}
