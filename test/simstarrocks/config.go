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
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/utils/clock"
)

// FE's mutable configuration, as ADMIN SET FRONTEND CONFIG and ADMIN SHOW
// FRONTEND CONFIG see it (docs/upgrades.md "What StarRocks' source says"):
//
//   - ADMIN SET FRONTEND CONFIG ("key" = "value") takes one property
//     (adminSetConfigStatement: ADMIN SET FRONTEND CONFIG '(' property ')',
//     StarRocks.g4) and needs OPERATE (checkStmtOperatePrivilege in
//     visitAdminSetConfigStatement). The FE that runs it sets its own
//     value first, then calls setConfig over Thrift on every other FE of
//     its frontend list, alive or not, one after the other (setConfigOn).
//     The key is a field name or an
//     alias (ConfigBase.initAllMutableConfigs puts both); an unknown or
//     immutable key fails with "Config '<key>' does not exist or is not
//     mutable" (ConfigBase.setMutableConfig).
//   - The value lives in that FE process's memory: in a container FE does
//     not persist it (ConfigBase: isPersisted only when fe.conf is writable
//     and !Util.isRunningInContainer()), so an FE that restarts, or joins
//     later, runs with fe.conf's value (docs, ADMIN SET CONFIG: "restored to
//     the default values in the fe.conf file after the FE restarts").
//   - ADMIN SHOW FRONTEND CONFIG [LIKE 'pattern'] is answered by the FE the
//     client reached, from its own memory; the pattern matches a field
//     name or an alias, and Key is the field name
//     (ConfigBase.getConfigInfo, isAliasesMatch); the columns are Key,
//     AliasNames, Value, Type, IsMutable, Comment (AdminShowConfigStmt
//     TITLE_NAMES; older copies have no AliasNames. UNVERIFIED: the first
//     version with it; the simulation shows it on every version).
//
// Only the keys the upgrade procedure uses are simulated, at the defaults
// of common/Config.java; the tablet scheduler of the leader obeys
// tablet_sched_max_scheduling_tablets (tablets.go), and its
// ColocateTableBalancer tablet_sched_disable_colocate_balance (tablets.go,
// relocateColocate). Balancing itself is not simulated, so
// tablet_sched_disable_balance changes nothing but its value.

// configKey is one simulated FE configuration field.
type configKey struct {
	name, typ, def string
	aliases        []string
}

// configKeys are the simulated fields (common/Config.java, field name,
// type, default and aliases).
var configKeys = []configKey{
	{name: "tablet_sched_max_scheduling_tablets", typ: "int", def: strconv.Itoa(defaultMaxSchedulingTablets), aliases: []string{"max_scheduling_tablets"}},
	{name: "tablet_sched_max_balancing_tablets", typ: "int", def: "500", aliases: []string{"max_balancing_tablets"}},
	{name: "tablet_sched_disable_balance", typ: "boolean", def: "false", aliases: []string{"disable_balance"}},
	{name: "tablet_sched_disable_colocate_balance", typ: "boolean", def: "false", aliases: []string{"disable_colocate_balance"}},
}

// defaultSetConfigTimeout is ConfigBase.setConfig's wait for one other FE:
// ConnectContext.getExecTimeout() (query_timeout, 300 s) * 1000 +
// thrift_rpc_timeout_ms (10000; common/Config.java).
const defaultSetConfigTimeout = 310 * time.Second

// defaultMaxSchedulingTablets is tablet_sched_max_scheduling_tablets'
// default (common/Config.java).
const defaultMaxSchedulingTablets = 10000

// checkerInterval is tablet_sched_checker_interval_seconds (20, not
// mutable; common/Config.java): how often TabletChecker hands unhealthy
// tablets to the scheduler.
const checkerInterval = 20 * time.Second

// lookupConfigKey finds a field by its name or an alias.
func lookupConfigKey(key string) (configKey, bool) {
	for _, k := range configKeys {
		if k.name == key {
			return k, true
		}
		for _, a := range k.aliases {
			if a == key {
				return k, true
			}
		}
	}
	return configKey{}, false
}

// feConfig is one FE process's values set by ADMIN SET FRONTEND CONFIG, by
// field name; a field not in it has its default.
type feConfig map[string]string

func (c feConfig) value(k configKey) string {
	if v, ok := c[k.name]; ok {
		return v
	}
	return k.def
}

// maxScheduling is tablet_sched_max_scheduling_tablets in c.
func (c feConfig) maxScheduling() int {
	k, _ := lookupConfigKey("tablet_sched_max_scheduling_tablets")
	n, err := strconv.Atoi(c.value(k))
	if err != nil {
		return defaultMaxSchedulingTablets
	}
	return n
}

// disableColocateBalance is tablet_sched_disable_colocate_balance in c.
func (c feConfig) disableColocateBalance() bool {
	k, _ := lookupConfigKey("tablet_sched_disable_colocate_balance")
	return c.value(k) == "true"
}

// parseConfigValue checks value against the field's type as
// ConfigBase.setConfigField does (Integer.parseInt, Boolean.parseBoolean
// after a check), returning the value as FE shows it afterwards.
func parseConfigValue(k configKey, value string) (string, *sqlError) {
	switch k.typ {
	case "int":
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil {
			return "", ddlError("Failed to set config '%s'. err: For input string: \"%s\"", k.name, value)
		}
		return strconv.Itoa(n), nil
	case "boolean":
		// UNVERIFIED: FE's exact words for a value that is no boolean.
		switch strings.ToLower(strings.TrimSpace(value)) {
		case "true":
			return "true", nil
		case "false":
			return "false", nil
		}
		return "", ddlError("Failed to set config '%s'. err: type mismatch", k.name)
	}
	return value, nil
}

// setFrontendConfig is ADMIN SET FRONTEND CONFIG as the FE that runs it
// (the leader) begins it: the value checked and set in its own memory
// (ConfigBase.setFrontendConfig → setMutableConfig); with no FE process
// known, the simulation's one FE takes it. It returns the hosts of the
// other FEs of its frontend list, which setConfigOn calls next. The caller
// holds s.mu.
func (s *StarRocks) setFrontendConfig(st *statement) (configKey, string, []string, *sqlError) {
	k, ok := lookupConfigKey(st.configKey)
	if !ok {
		return k, "", nil, ddlError("Config '%s' does not exist or is not mutable", st.configKey)
	}
	v, serr := parseConfigValue(k, st.configValue)
	if serr != nil {
		return k, "", nil, serr
	}
	if len(s.views.procs) == 0 || s.state.leader == nil {
		if s.config == nil {
			s.config = feConfig{}
		}
		s.config[k.name] = v
		return k, v, nil, nil
	}
	self := s.state.leader.host
	s.setOwn(self, k, v)
	var others []string
	for _, fe := range s.state.frontends {
		if fe.host != self {
			others = append(others, fe.host)
		}
	}
	return k, v, others, nil
}

// setOwn sets k to v in the memory of the FE process at host; the caller
// holds s.mu.
func (s *StarRocks) setOwn(host string, k configKey, v string) {
	p := s.process(host)
	if p.config == nil {
		p.config = feConfig{}
	}
	p.config[k.name] = v
}

// setConfigOn is the rest of ConfigBase.setConfig (StarRocks
// fe/fe-core/src/main/java/com/starrocks/common/ConfigBase.java @9c4caa1e,
// and NodeMgr.setConfig in other copies; sheet "ADMIN SET FRONTEND CONFIG
// fails partway, after it has applied"): one Thrift setConfig to each
// other FE of getFrontends(null), alive or not, skipping only itself, in
// list order, each waiting up to query_timeout * 1000 +
// thrift_rpc_timeout_ms (Options.SetConfigTimeout). An FE whose process
// runs takes the value; one that does not costs the whole timeout and adds
// "set config for fe[<host>] failed: <msg>" to the error; the others are
// called all the same. The statement then fails with
// ERROR_SET_CONFIG_FAILED ("Set config failed: %s"; sent as 1064 / HY000,
// sheet §0), every FE that answered holding the new value. (The copy @00180c94 skips the FEs it
// does not hold alive; the simulation is the one that does not.) FE runs
// on whether or not the client still waits: the loop is FE's, so a client
// that gave up does not stop it. FE's errMsg appends itself after each
// call (errMsg.append(callFrontNodeSetConfig(..., errMsg))), repeating the
// text; the simulation names each FE once. The caller does not hold s.mu.
func (s *StarRocks) setConfigOn(k configKey, v string, hosts []string) *sqlError {
	var failed []string
	for _, host := range hosts {
		answered := false
		s.locked(func(*cluster) {
			if p := s.views.procs[host]; p != nil && p.running {
				s.setOwn(host, k, v)
				answered = true
			}
		})
		if answered {
			continue
		}
		s.waitFor(s.opts.SetConfigTimeout)
		// UNVERIFIED: the exception's text for a host that does not answer.
		failed = append(failed, fmt.Sprintf("set config for fe[%s] failed: Read timed out", host))
	}
	if len(failed) == 0 {
		return nil
	}
	return ddlError("Set config failed: %s", strings.Join(failed, ""))
}

// waitFor waits d on the simulation's clock (a fake clock's Step ends it),
// or until the simulation stops.
func (s *StarRocks) waitFor(d time.Duration) {
	var done <-chan time.Time
	if cl, ok := s.opts.Clock.(clock.Clock); ok {
		done = cl.After(d)
	} else {
		done = time.After(d)
	}
	select {
	case <-done:
	case <-s.stopped:
	}
}

// showFrontendConfig is ADMIN SHOW FRONTEND CONFIG [LIKE pattern] answered
// by the FE of host ("" before any FE process is known). The caller holds
// s.mu.
func (s *StarRocks) showFrontendConfig(host string, st *statement) *result {
	cfg := s.config
	if p := s.views.procs[host]; p != nil {
		cfg = p.config
	}
	res := &result{columns: []string{"Key", "AliasNames", "Value", "Type", "IsMutable", "Comment"}}
	for _, k := range configKeys {
		if st.hasPattern && !likeMatch(st.pattern, k.name) && !anyLike(st.pattern, k.aliases) {
			continue
		}
		res.rows = append(res.rows, []string{k.name, "[" + strings.Join(k.aliases, ", ") + "]", cfg.value(k), k.typ, "true", ""})
	}
	return res
}

// leaderConfig is the configuration of the FE that leads (the one whose
// tablet scheduler runs); the caller holds s.mu.
func (s *StarRocks) leaderConfig() feConfig {
	if len(s.views.procs) == 0 || s.state.leader == nil {
		return s.config
	}
	if p := s.views.procs[s.state.leader.host]; p != nil && p.running {
		return p.config
	}
	return nil
}

func anyLike(pattern string, names []string) bool {
	for _, n := range names {
		if likeMatch(pattern, n) {
			return true
		}
	}
	return false
}

// likeMatch is a MySQL LIKE pattern ('%' any run, '_' one character, '\'
// escapes) against s, case-insensitive (PatternMatcher.createMysqlPattern;
// UNVERIFIED: the case sensibility FE gives configuration names).
func likeMatch(pattern, s string) bool {
	var b strings.Builder
	b.WriteString("(?is)^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\' && i+1 < len(pattern):
			i++
			b.WriteString(regexp.QuoteMeta(string(pattern[i])))
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(s)
}

// Stop is a process that stopped, and the configuration its repairs obeyed
// then: an FE's own memory, or for a BE or CN the leader's.
type Stop struct {
	Host string
	// Scheduling is tablet_sched_max_scheduling_tablets then.
	Scheduling string
	// At is when it stopped, on Options.Clock.
	At time.Time
}

// noteStop records a process stop; the caller holds s.mu.
func (s *StarRocks) noteStop(host string, cfg feConfig) {
	k, _ := lookupConfigKey("tablet_sched_max_scheduling_tablets")
	s.stops = append(s.stops, Stop{Host: host, Scheduling: cfg.value(k), At: s.opts.Clock.Now()})
}

// Stops are the FE, BE and CN processes that stopped, in order, each with
// the scheduling limit in force as it stopped: for telling whether a pod
// was replaced with tablet clone paused, with no race against a sampler.
func (s *StarRocks) Stops() []Stop {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.stops)
}

// FrontendConfig is key's value (a field name or an alias) in the memory of
// the FE process at host, as ADMIN SHOW FRONTEND CONFIG on that FE would
// show it; host "" is the leader's. False for a key not simulated or an FE
// that does not run.
func (s *StarRocks) FrontendConfig(host, key string) (string, bool) {
	k, ok := lookupConfigKey(key)
	if !ok {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if host == "" {
		if len(s.views.procs) > 0 && s.state.leader == nil {
			return "", false
		}
		return s.leaderConfig().value(k), true
	}
	p := s.views.procs[host]
	if p == nil || !p.running {
		return "", false
	}
	return p.config.value(k), true
}
