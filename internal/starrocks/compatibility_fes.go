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
*/package starrocks

// The FEs the compatibility pause cannot reach while FE lists them Alive:
// pods being replaced, whose ended process FE lists for about 20 s
// (Frontend.handleHbResponse), and the FEs ADMIN SET FRONTEND CONFIG names
// when it fails (ConfigBase.setConfig).

import (
	"slices"
	"strings"

	"github.com/srscale/starrocks-operator/internal/fe"
)

// feRestarting: within HeartbeatSettle of the last FE pod change, an FE
// pod is not Ready (a pod replaced, its process ended or not started).
// Past that, a pod that stays down holds nothing: the pause is set on
// what answers, and FE's leader is asked (item 14's rule).
func feRestarting(in CompatibilityIn) bool {
	return len(in.FENotReady) > 0 && !in.FEChanged.IsZero() && in.Now.Before(in.FEChanged.Add(HeartbeatSettle))
}

// silentFEs are the hosts ADMIN SET FRONTEND CONFIG's error names, one
// "set config for fe[<host>] failed: " per FE that failed
// (ConfigBase.setConfig); nil when it names none.
func silentFEs(msg string) []string {
	const open = "set config for fe["
	var hosts []string
	for {
		i := strings.Index(msg, open)
		if i < 0 {
			return hosts
		}
		msg = msg[i+len(open):]
		j := strings.Index(msg, "]")
		if j < 0 {
			return hosts
		}
		hosts = append(hosts, msg[:j])
		msg = msg[j:]
	}
}

// replacedOnly: hosts is not empty and each is an FE pod of this cluster
// that is not Ready (FENotReady: replaced, terminating or not started),
// or whose process FE's report shows started since the statement was sent
// (its row not in sentFor, the Fingerprint then).
func (in PauseInput) replacedOnly(hosts []string, sentFor string, now *Report) bool {
	sent := strings.Split(sentFor, ",")
	restarted := func(host string) bool {
		for _, f := range frontendsOf(now) {
			if f.Host == host {
				return !slices.Contains(sent, f.Name+"@"+f.StartTime+"/"+f.Role)
			}
		}
		return false
	}
	for _, h := range hosts {
		ord, ok := in.FENames.Ordinal(h)
		if !ok || (!in.FENotReady[ord] && !restarted(h)) {
			return false
		}
	}
	return len(hosts) > 0
}

func frontendsOf(r *Report) []fe.Frontend {
	if r == nil {
		return nil
	}
	return r.Frontends
}
