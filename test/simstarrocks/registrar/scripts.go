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

package registrar

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// The scripts' timing (sheet §1 table and FE start logic).
const (
	probeInterval          = 2 * time.Second   // PROBE_INTERVAL in all three scripts
	addSelfTimeout         = 60 * time.Second  // be/cn_entrypoint.sh PROBE_TIMEOUT
	probeLeaderPodXTimeout = 120 * time.Second // fe_entrypoint.sh PROBE_LEADER_PODX_TIMEOUT
	addFollowerTimeout     = 30 * time.Second  // fe_entrypoint.sh start_fe_no_meta "30s timeout"
	// editLogPort is what fe_entrypoint.sh @40dfa8b3 uses whatever fe.conf says:
	// it reads edit_port but tests edit_log_port (sheet §1 "Bug").
	editLogPort = 9010
)

// script is one run of a container's entrypoint.
type script struct {
	r         *Registrar
	ctx       context.Context
	key       types.NamespacedName
	st        *podState
	gen       int
	pod       *corev1.Pod
	container *corev1.Container
	sim       *simstarrocks.StarRocks
	env       map[string]string
	host      string
	password  string
}

// run runs the entrypoint up to start_{fe,be,cn}.sh; false: it exited or was killed.
func (s *script) run(c resources.Component) bool {
	s.sim = s.st.sim
	s.env = environment(s.ctx, s.r.kube, s.pod, s.container)
	s.password = s.env["MYSQL_PWD"] // sheet §11: the mysql client reads it; no -p is passed
	if c == resources.ComponentFE {
		s.host = s.feMyself()
	} else {
		s.host = s.beMyself()
	}
	s.r.mu.Lock()
	current := s.st.gen == s.gen
	if current {
		s.st.host, s.st.password = s.host, s.password
	}
	s.r.mu.Unlock()
	if !current || s.ctx.Err() != nil {
		return false
	}
	// The process runs its image's release: FE reports it once it hears
	// from the process (a tag that names no release leaves the default).
	s.sim.SetRelease(s.host, ImageRelease(s.container.Image))
	switch c {
	case resources.ComponentBE:
		hb := heartbeatPort(s.container)
		return s.addSelf("SHOW BACKENDS;", fmt.Sprintf(`ALTER SYSTEM ADD BACKEND "%s:%d";`, s.host, hb))
	case resources.ComponentCN:
		hb := heartbeatPort(s.container)
		// cn_entrypoint.sh add_self: with KUBE_STARROCKS_MULTI_WAREHOUSE set
		// (non-empty), its value names the warehouse, created first.
		if wh := s.env[resources.MultiWarehouseEnv]; wh != "" {
			return s.addSelf("SHOW COMPUTE NODES;",
				fmt.Sprintf("CREATE WAREHOUSE IF NOT EXISTS %s;", wh),
				fmt.Sprintf(`ALTER SYSTEM ADD COMPUTE NODE "%s:%d" INTO WAREHOUSE %s;`, s.host, hb, wh))
		}
		return s.addSelf("SHOW COMPUTE NODES;", fmt.Sprintf(`ALTER SYSTEM ADD COMPUTE NODE "%s:%d";`, s.host, hb))
	default:
		return s.fe()
	}
}

// beMyself is be/cn_entrypoint.sh's MY_SELF: `hostname -i` when HOST_TYPE
// (default "IP") is IP, else `hostname -f`.
func (s *script) beMyself() string {
	hostType := s.env["HOST_TYPE"]
	if hostType == "" {
		hostType = "IP" // HOST_TYPE=${HOST_TYPE:-"IP"}
	}
	if hostType == "IP" {
		return hostnameI(s.pod)
	}
	return hostnameF(s.pod, s.r.opts.dnsDomain())
}

// feMyself is fe_entrypoint.sh's MYSELF: POD_FQDN (env, else `hostname -f`)
// when HOST_TYPE is FQDN, else POD_IP (env, else `hostname -i`).
func (s *script) feMyself() string {
	if s.env["HOST_TYPE"] == "FQDN" {
		return s.podFQDN()
	}
	if ip := s.env["POD_IP"]; ip != "" {
		return ip
	}
	return hostnameI(s.pod)
}

func (s *script) podFQDN() string {
	if fqdn := s.env["POD_FQDN"]; fqdn != "" {
		return fqdn
	}
	return hostnameF(s.pod, s.r.opts.dnsDomain())
}

// addSelf is be_entrypoint.sh's and cn_entrypoint.sh's add_self: send the
// statements (their errors, such as "already exists", ignored), then look for
// MY_SELF in the SHOW output (`grep -w`); again every 2 s; exit 1 after 60 s
// (sheet §1 table). It runs on every container start.
func (s *script) addSelf(show string, adds ...string) bool {
	start := time.Now()
	for {
		for _, add := range adds {
			_, _ = s.mysql(add)
		}
		out, _ := s.mysql(show)
		if len(grepWord(out, s.host)) > 0 {
			s.logf("%s is registered: start_%s.sh runs", s.host, string(s.st.component))
			return true
		}
		if !time.Now().Before(start.Add(addSelfTimeout)) {
			return s.exit("Time out, abort!")
		}
		if !s.sleep(probeInterval) {
			return false
		}
	}
}

// fe is fe_entrypoint.sh @40dfa8b3 (sheet §1 FE start logic).
func (s *script) fe() bool {
	meta := s.claimed(metaKey(s.pod, s.container))
	s.r.mu.Lock()
	hasRole := s.r.roles[meta]
	s.r.mu.Unlock()
	if hasRole {
		// 1: meta/image/ROLE exists: start_fe.sh --host_type ..., no SQL at all.
		// An FE dropped from the group cannot start on its old metadata
		// ("explicitly removed", sheet §7): it never becomes ready.
		if !slices.ContainsFunc(s.sim.Frontends(), func(f simstarrocks.Frontend) bool { return f.Host == s.host }) {
			return s.exit(fmt.Sprintf("meta/image/ROLE exists (%s) but %s was dropped from FE's group: start_fe.sh fails (explicitly removed)", meta, s.host))
		}
		s.logf("meta/image/ROLE exists (%s): start_fe.sh without SQL", meta)
		s.hostType()
		return true
	}
	// 2-4: probe for the leader; pod 0 may start as the first FE.
	index, numeric := podIndex(s.podFQDN())
	var leader string
	var ok bool
	if numeric && index == 0 {
		leader, ok = s.probeLeaderPod0()
	} else {
		leader, ok = s.probeLeaderPodX()
	}
	if !ok {
		return false
	}
	if leader == "" {
		if s.ctx.Err() != nil {
			return false
		}
		s.logf("no members ever seen: first FE, start_fe.sh without --helper")
		s.sim.BootstrapFrontend(s.host, editLogPort)
		s.hostType()
	} else {
		if !s.addFollower(leader) {
			return false
		}
		s.logf("start_fe.sh --helper %s:%d", leader, editLogPort)
		if err := s.sim.StartFrontend(s.host, editLogPort); err != nil {
			return s.exit(fmt.Sprintf("start_fe.sh --helper failed: %v", err))
		}
		s.hostType()
	}
	// The FE writes meta/image/ROLE once it runs.
	s.r.mu.Lock()
	s.r.roles[meta] = true
	s.r.mu.Unlock()
	return true
}

// claimed adds to a metaKey on a claim the claim's UID: a claim deleted and
// made again under its name is a new, empty volume.
func (s *script) claimed(meta string) string {
	rest, ok := strings.CutPrefix(meta, "claim ")
	if !ok {
		return meta
	}
	ref, _, _ := strings.Cut(rest, " ")
	ns, name, _ := strings.Cut(ref, "/")
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	pvc, err := s.r.kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return meta
	}
	return meta + " uid " + string(pvc.UID)
}

// leaderIn is `grep '\<LEADER\>' | awk '{print $2}'` on `show frontends`
// output: the IP column of the 16-column layout (sheet §1 FE start logic 2).
func leaderIn(out string) string {
	var leaders []string
	for _, line := range grepWord(out, "LEADER") {
		leaders = append(leaders, awkField(line, 2))
	}
	return strings.Join(leaders, "\n")
}

// probeLeaderPod0 is probe_leader_for_pod0: a leader is found; or, with no
// member ever seen, after PROBE_LEADER_POD0_TIMEOUT it starts as the first
// node (leader ""); having seen members, it waits 120 s, then exits 1.
func (s *script) probeLeaderPod0() (string, bool) {
	start := time.Now()
	hasMember := false
	for {
		out, _ := s.mysql("show frontends;")
		if leader := leaderIn(out); leader != "" {
			s.logf("Find leader: %s!", leader)
			return leader, true
		}
		if out != "" {
			hasMember = true
		}
		timeout := s.r.opts.pod0LeaderTimeout()
		if hasMember {
			timeout = probeLeaderPodXTimeout
		}
		if !time.Now().Before(start.Add(timeout)) {
			if hasMember {
				return "", s.exit("Timed out, abort!")
			}
			return "", true
		}
		if !s.sleep(probeInterval) {
			return "", false
		}
	}
}

// probeLeaderPodX is probe_leader_for_podX: wait for a leader for 120 s, else exit 1.
func (s *script) probeLeaderPodX() (string, bool) {
	start := time.Now()
	for {
		out, _ := s.mysql("show frontends;")
		if leader := leaderIn(out); leader != "" {
			s.logf("Find leader: %s!", leader)
			return leader, true
		}
		if !time.Now().Before(start.Add(probeLeaderPodXTimeout)) {
			return "", s.exit("Timed out, abort!")
		}
		if !s.sleep(probeInterval) {
			return "", false
		}
	}
}

// addFollower is start_fe_no_meta's loop: ADD FOLLOWER sent to the leader's
// own address, $FE_LEADER (its error ignored; its mysql has no `timeout 15`
// there, the registrar still bounds it), then `show frontends | grep -w
// MYSELF` through the Service; every 2 s; exit 1 after 30 s.
func (s *script) addFollower(leader string) bool {
	start := time.Now()
	for {
		_, _ = s.mysqlAt(s.sim.AddressOf(leader), fmt.Sprintf(`ALTER SYSTEM ADD FOLLOWER "%s:%d";`, s.host, editLogPort))
		out, _ := s.mysql("show frontends;")
		if len(grepWord(out, s.host)) > 0 {
			return true
		}
		if !time.Now().Before(start.Add(addFollowerTimeout)) {
			return s.exit("Timed out, abort!")
		}
		if !s.sleep(probeInterval) {
			return false
		}
	}
}

// dropCN is cn_entrypoint.sh @47bd0111's drop_my_self (sheet §12): until its
// row is gone, SHOW COMPUTE NODES, take `grep -w "\<MY_SELF\>" | awk
// '{printf("%s:%s\n", $2, $3)}'` and DROP it (no FROM WAREHOUSE); a failed
// SHOW sleeps 2 s. The script loops for ever; ctx ends at the kubelet's kill.
func dropCN(ctx context.Context, r *Registrar, key types.NamespacedName, sim *simstarrocks.StarRocks, host, password string) {
	s := &script{r: r, ctx: ctx, key: key, sim: sim, host: host, password: password}
	s.logf("try to drop myself(%s) from FE ...", host)
	for ctx.Err() == nil {
		out, err := s.mysql("SHOW COMPUTE NODES;")
		if err != nil {
			if !s.sleep(probeInterval) {
				break
			}
			continue
		}
		var self []string
		for _, line := range grepWord(out, host) {
			self = append(self, awkField(line, 2)+":"+awkField(line, 3))
		}
		if len(self) == 0 {
			s.logf("myself is not in fe cluster")
			return
		}
		_, _ = s.mysql(`ALTER SYSTEM DROP COMPUTE NODE "` + strings.Join(self, "\n") + `";`)
	}
	s.logf("killed before its compute node was dropped")
}

// mysql sends one statement to the FE Service and records it.
func (s *script) mysql(stmt string) (string, error) {
	return s.mysqlAt(s.sim.QueryAddress(), stmt)
}

// mysqlAt sends one statement to addr and records it.
func (s *script) mysqlAt(addr, stmt string) (string, error) {
	out, err := mysqlBatch(s.ctx, addr, s.password, stmt)
	if s.ctx.Err() != nil {
		return out, err // killed: nothing to record
	}
	rec := Statement{Pod: s.key.String(), SQL: stmt, At: time.Now()}
	result := "ok"
	if err != nil {
		rec.Err, result = err.Error(), "error: "+err.Error()
	} else if out != "" {
		result = fmt.Sprintf("%d row(s)", strings.Count(out, "\n")+1)
	}
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	if !s.r.stopped {
		s.r.stmts = append(s.r.stmts, rec)
	}
	s.r.logf(s.key, "%s -> %s", stmt, result)
	return out, err
}

func (s *script) logf(format string, args ...any) {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.r.logf(s.key, format, args...)
}

// exit records that the script exits 1; the container then crash-loops
// (crashLoop), as on a kubelet: kwok restarts no container.
func (s *script) exit(why string) bool {
	s.logf("entrypoint exits 1: %s", why)
	if s.st != nil {
		s.r.crashLoop(s.key, s.st, s.gen)
	}
	return false
}

func (s *script) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// hostType is start_fe.sh --host_type $HOST_TYPE (sheet §1): an FE not
// started with FQDN resolves the names of ADD statements to IPs through the
// cluster's DNS (sheet §0).
func (s *script) hostType() {
	s.sim.SetHostType(s.host, s.env["HOST_TYPE"] == "FQDN", s.r.resolve)
}

// ImageRelease is the release an image's tag names ("starrocks/be-ubuntu:3.4.1"
// → "3.4.1", a v prefix and an -rcNN suffix dropped); "" for a tag that names
// none (latest, a digest, 3.3-latest).
func ImageRelease(image string) string {
	if i := strings.IndexByte(image, '@'); i >= 0 {
		image = image[:i]
	}
	i := strings.LastIndexByte(image, ':')
	if i < 0 || strings.Contains(image[i:], "/") {
		return ""
	}
	tag := strings.TrimPrefix(image[i+1:], "v")
	if m := releaseTag.FindStringSubmatch(tag); m != nil {
		return m[1]
	}
	return ""
}

var releaseTag = regexp.MustCompile(`^(\d+\.\d+\.\d+)(-rc\d+)?$`)
