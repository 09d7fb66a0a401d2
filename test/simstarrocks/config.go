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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FE's mutable configuration, as ADMIN SET FRONTEND CONFIG and ADMIN SHOW
// FRONTEND CONFIG see it (docs/upgrades.md "What StarRocks' source says"):
//
//   - ADMIN SET FRONTEND CONFIG ("key" = "value") takes one property
//     (adminSetConfigStatement: ADMIN SET FRONTEND CONFIG '(' property ')',
//     StarRocks.g4) and needs OPERATE (checkStmtOperatePrivilege in
//     visitAdminSetConfigStatement). The FE that runs it sets its own
//     value, then every other alive FE of its frontend list over Thrift
//     (ConfigBase.setConfig @00180c94). The key is a field name or an
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
// tablet_sched_max_scheduling_tablets (tablets.go). Balancing is not
// simulated, so the two balance switches change nothing but their value.

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

// setFrontendConfig is ADMIN SET FRONTEND CONFIG, run by the leader: every
// running FE process that is in the group gets the value; with no FE
// process known, the simulation's one FE does. The caller holds s.mu.
func (s *StarRocks) setFrontendConfig(st *statement) *sqlError {
	k, ok := lookupConfigKey(st.configKey)
	if !ok {
		return ddlError("Config '%s' does not exist or is not mutable", st.configKey)
	}
	v, serr := parseConfigValue(k, st.configValue)
	if serr != nil {
		return serr
	}
	if len(s.views.procs) == 0 {
		if s.config == nil {
			s.config = feConfig{}
		}
		s.config[k.name] = v
		return nil
	}
	for _, p := range s.views.procs {
		inGroup := false
		for _, fe := range s.state.frontends {
			if fe.host == p.host && fe.join && fe.alive {
				inGroup = true
			}
		}
		if !p.running || p.frozen != nil || !inGroup {
			continue // ConfigBase.setConfig skips FEs that are not alive
		}
		if p.config == nil {
			p.config = feConfig{}
		}
		p.config[k.name] = v
	}
	return nil
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
