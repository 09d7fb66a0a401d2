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
	"fmt"
	"path"
	"strconv"
	"strings"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// Config is what a builder needs beyond the spec.
type Config struct {
	// Content is the component's .conf file, read from the ConfigMap and key
	// named by the component's configMapInfo; empty when there is none. Its
	// ports override the defaults, and a change of it rolls the pods (see Live).
	Content string

	// FEContent is the FE's .conf file (empty when there is none). BE and CN
	// read the FE's query port from it (FE_QUERY_PORT) and the FE proxy its HTTP
	// port, since all three reach the FE through the FE Service. FE ignores it.
	FEContent string

	// Live is what the live workload records about the configuration its pods
	// run with; zero for a workload that does not exist yet.
	Live ConfigState

	// Options are the operator-wide settings.
	Options Options
}

// ConfigState is what a live workload records of ConfigHashAnnotation.
//
// The upstream operator does not roll pods when a .conf changes; we do, with
// ConfigHashAnnotation on the pod template. To adopt an upstream cluster
// without changing its template, the hash goes on the template only once the
// content changes after we first saw it (a change that must roll the pods
// anyway), and from then on stays there. Until then the workload itself
// carries the hash we saw, which changes nothing in the pods.
type ConfigState struct {
	// Template is the annotation on the live pod template ("" when none).
	Template string
	// Recorded is the annotation on the live workload object ("" when none).
	Recorded string
}

// Options are the operator-wide settings the builders honour. The zero value
// is the upstream operator's default behaviour.
type Options struct {
	// PlainVolumeNames names the volumes of configMaps[] and secrets[] after
	// the ConfigMap or Secret alone (--volume-name-with-hash=false) instead of
	// <name>-<hash of the mount>.
	PlainVolumeNames bool
	// DNSDomainSuffix is the cluster's DNS domain (--dns-domain-suffix); "" means cluster.local.
	DNSDomainSuffix string
	// UnsupportedEnvs are variables the operator must not add to containers
	// (KUBE_STARROCKS_UNSUPPORTED_ENVS), for Kubernetes versions that lack the
	// field they come from.
	UnsupportedEnvs []string
}

func (o Options) dnsDomain() string {
	if o.DNSDomainSuffix == "" {
		return "cluster.local"
	}
	return o.DNSDomainSuffix
}

// portDef is one listening port of a component.
type portDef struct {
	key     string   // key in the .conf file, also the key of Ports' result
	aliases []string // other keys StarRocks accepts for the same port
	name    string   // name of the Service port
	// container is the name of the container port; "" for a port the
	// upstream does not declare on the container (FE's edit_log_port).
	container string
	port      int32 // default
	// optional ports exist only when the .conf sets them.
	optional bool
}

// arrowFlight is Arrow Flight SQL, served only when the .conf sets its port.
var arrowFlight = portDef{key: "arrow_flight_port", name: "arrow-flight", container: "arrow-flight", optional: true}

// The ports of each component, in the order they appear on containers and Services.
var (
	fePortDefs = []portDef{
		{key: "http_port", name: "http", container: "http-port", port: 8030},
		{key: "rpc_port", name: "rpc", container: "rpc-port", port: 9020},
		{key: "query_port", name: "query", container: "query-port", port: 9030},
		{key: "edit_log_port", name: "edit-log", port: 9010},
		arrowFlight,
	}
	// be_http_port is the newer name of webserver_port (StarRocks 3.x).
	bePortDefs = []portDef{
		{key: "be_port", name: "be", container: "be-port", port: 9060},
		{key: "webserver_port", aliases: []string{"be_http_port"}, name: "webserver", container: "webserver-port", port: 8040},
		{key: "heartbeat_service_port", name: "heartbeat", container: "heartbeat-port", port: 9050},
		{key: "brpc_port", name: "brpc", container: "brpc-port", port: 8060},
		arrowFlight,
	}
	// Newer cn.conf files call the thrift port be_port, as BE does.
	cnPortDefs = []portDef{
		{key: "thrift_port", aliases: []string{"be_port"}, name: "thrift", container: "thrift-port", port: 9060},
		{key: "webserver_port", aliases: []string{"be_http_port"}, name: "webserver", container: "webserver-port", port: 8040},
		{key: "heartbeat_service_port", name: "heartbeat", container: "heartbeat-port", port: 9050},
		{key: "brpc_port", name: "brpc", container: "brpc-port", port: 8060},
		arrowFlight,
	}
)

// The port names the builders look up.
const (
	fePortHTTP      = "http"
	fePortQuery     = "query"
	portWebserver   = "webserver"
	portHeartbeat   = "heartbeat"
	portBrpc        = "brpc"
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
	name      string
	container string // container port name; "" for none
	port      int32
}

// effectivePorts are a component's ports, in portDefs order, with the values
// of the .conf content overriding the defaults.
func effectivePorts(c Component, content string) []namedPort {
	defs := portDefs(c)
	values := parseConf(content)
	out := make([]namedPort, 0, len(defs))
	for _, d := range defs {
		p := namedPort{name: d.name, container: d.container, port: d.port}
		// The key set last in the file wins, as StarRocks reads it.
		best := -1
		for _, k := range append([]string{d.key}, d.aliases...) {
			if v, ok := values[k]; ok && v.line > best {
				best, p.port = v.line, v.port
			}
		}
		if d.optional && best < 0 {
			continue
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
	for _, d := range defs {
		if p := portNamed(ports, d.name); p != 0 {
			out[d.key] = p
		}
	}
	return out
}

// confPort is a port value read from a .conf file and the line it was on.
type confPort struct {
	port int32
	line int
}

// parseConf reads the lines of a .conf file whose value is a valid port
// number. StarRocks reads its .conf files as Java properties, so a key ends at
// the first '=', ':' or white space (`key=value`, `key: value`, `key value`);
// lines starting with '#' or '!' are comments. Quotes around the value and
// non-numeric values are ignored; a key set twice keeps its last value.
func parseConf(content string) map[string]confPort {
	out := map[string]confPort{}
	for i, line := range strings.Split(content, "\n") {
		key, value, ok := propertyLine(line)
		if !ok {
			continue
		}
		if j := strings.IndexByte(value, '#'); j >= 0 { // StarRocks also ignores a trailing comment
			value = strings.TrimSpace(value[:j])
		}
		value = strings.Trim(value, `"'`)
		n, err := strconv.ParseInt(value, 10, 32)
		if err != nil || n < 1 || n > 65535 {
			continue
		}
		out[key] = confPort{port: int32(n), line: i}
	}
	return out
}

// propertyLine splits one line of a Java properties file into key and value.
func propertyLine(line string) (key, value string, ok bool) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' || line[0] == '!' {
		return "", "", false
	}
	end := strings.IndexAny(line, "=: \t")
	if end <= 0 {
		return "", "", false
	}
	key, rest := line[:end], strings.TrimLeft(line[end:], " \t")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = rest[1:]
	}
	return key, strings.TrimSpace(rest), true
}

// configHash is the value of ConfigHashAnnotation for a .conf content.
func configHash(content string) string {
	return shortHash(content)
}

// ConfSource is where a component's .conf comes from: the ConfigMap and key
// of its configMapInfo or, without one, of a configMaps[] entry that mounts
// <component>.conf where StarRocks reads it (/opt/starrocks/<c>/conf), as the
// upstream falls back to. Fallback is true for the latter: a ConfigMap the
// user mounts themselves may be absent without that being our error.
type ConfSource struct {
	ConfigMap, Key string
	Fallback       bool
}

// ConfSourceOf returns the component's .conf source; ok is false when it has none.
func ConfSourceOf(c Component, spec *srv1.StarRocksComponentSpec) (src ConfSource, ok bool) {
	if spec == nil {
		return ConfSource{}, false
	}
	if info := spec.ConfigMapInfo; info.ConfigMapName != "" {
		return ConfSource{ConfigMap: info.ConfigMapName, Key: info.ResolveKey}, true
	}
	dir, file := starRocksRoot+"/"+string(c)+"/conf", string(c)+".conf"
	for _, r := range spec.ConfigMaps {
		switch {
		case r.Name == "":
		case r.SubPath != "" && path.Clean(r.MountPath) == dir+"/"+file:
			return ConfSource{ConfigMap: r.Name, Key: r.SubPath, Fallback: true}, true
		case r.SubPath == "" && path.Clean(r.MountPath) == dir:
			return ConfSource{ConfigMap: r.Name, Key: file, Fallback: true}, true
		}
	}
	return ConfSource{}, false
}

// PortErrors lists the port settings of a component's .conf that StarRocks
// could not start with: a port key whose value is not a number from 1 to
// 65535 ("http_port = abc"). The builders ignore such a line and use the
// default, but the component itself would fail, so the controller refuses
// the file instead of rolling pods into it.
func PortErrors(c Component, content string) []string {
	keys := map[string]bool{}
	for _, d := range portDefs(c) {
		keys[d.key] = true
		for _, a := range d.aliases {
			keys[a] = true
		}
	}
	var errs []string
	for i, line := range strings.Split(content, "\n") {
		key, value, ok := propertyLine(line)
		if !ok || !keys[key] {
			continue
		}
		if j := strings.IndexByte(value, '#'); j >= 0 {
			value = strings.TrimSpace(value[:j])
		}
		value = strings.Trim(value, `"'`)
		if n, err := strconv.ParseInt(value, 10, 32); err != nil || n < 1 || n > 65535 {
			errs = append(errs, fmt.Sprintf("line %d: %s = %q is not a port number (1-65535)", i+1, key, value))
		}
	}
	return errs
}
