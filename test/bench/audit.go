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

package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// auditPolicy logs the operator's requests at Metadata level and nothing
// else: the benchmark's own client, the controllers and kwok would otherwise
// fill the log (and slow the API server, which writes it in blocking mode).
// With allocations, it logs the creates of IPAddress objects too: the API
// server writes one for each ClusterIP it allocates (see allocations), one
// line per client Service.
func auditPolicy(user string, allocations bool) string {
	extra := ""
	if allocations {
		extra = "- level: Metadata\n  verbs: [create]\n  resources: [{group: networking.k8s.io, resources: [ipaddresses]}]\n"
	}
	return fmt.Sprintf(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  users: [%q]
%s- level: None
`, user, extra)
}

// request is one completed API request of the operator, from the audit log.
type request struct {
	Verb     string
	Resource string // "statefulsets", "starrocksclusters/status"
	// Namespace and Name of the object, when the request names one.
	Namespace, Name string
	Code            int
	Received        time.Time
	// Completed is when the API server finished with it (the audit event's
	// stage timestamp): for a create that answered 201, when the object existed.
	Completed time.Time
	// Server is how long the API server took: the audit event's stage
	// timestamp (response complete) less the time it received the request.
	Server time.Duration
}

func (r request) write() bool {
	switch r.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

type auditEvent struct {
	Stage string `json:"stage"`
	Verb  string `json:"verb"`
	User  struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
	StageTimestamp           time.Time `json:"stageTimestamp"`
}

// readAudit returns user's completed requests in the order they were
// received (with user "", every user's). Only stage ResponseComplete counts, so that a watch counts once
// (when it ends) and no request twice; the leader-election Lease, if any, is
// left out: it is the price of running two replicas, not of reconciling.
func readAudit(path, user string) ([]request, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []request
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if (user != "" && ev.User.Username != user) || ev.Stage != "ResponseComplete" {
			continue
		}
		r := request{Verb: ev.Verb, Resource: "nonresource", Received: ev.RequestReceivedTimestamp,
			Completed: ev.StageTimestamp, Server: ev.StageTimestamp.Sub(ev.RequestReceivedTimestamp)}
		if ev.ObjectRef != nil {
			r.Resource = ev.ObjectRef.Resource
			r.Namespace, r.Name = ev.ObjectRef.Namespace, ev.ObjectRef.Name
			if ev.ObjectRef.Subresource != "" {
				r.Resource += "/" + ev.ObjectRef.Subresource
			}
		}
		if r.Resource == "leases" {
			continue
		}
		if ev.ResponseStatus != nil {
			r.Code = ev.ResponseStatus.Code
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// requestCounts summarises requests received in [from, to).
type requestCounts struct {
	Total     int            `json:"total"`
	Writes    int            `json:"writes"`
	Conflicts int            `json:"conflicts"`
	ByVerb    map[string]int `json:"byVerbResource"` // "patch starrocksclusters/status" -> n
}

func countRequests(reqs []request, from, to time.Time) requestCounts {
	c := requestCounts{ByVerb: map[string]int{}}
	for _, r := range reqs {
		if r.Received.Before(from) || !r.Received.Before(to) {
			continue
		}
		c.Total++
		if r.write() {
			c.Writes++
		}
		if r.Code == 409 {
			c.Conflicts++
		}
		c.ByVerb[r.Verb+" "+r.Resource]++
	}
	return c
}

// lastWrite is when the last write in [from, to) was received (zero if none).
func lastWrite(reqs []request, from, to time.Time) time.Time {
	var last time.Time
	for _, r := range reqs {
		if r.write() && !r.Received.Before(from) && r.Received.Before(to) && r.Received.After(last) {
			last = r.Received
		}
	}
	return last
}

// timing is, for one verb and resource, how long the API server took to
// handle the requests and when they arrived, counted from the first create.
type timing struct {
	Count int `json:"count"`
	// ServerMs: milliseconds from receiving each request to completing it.
	ServerMs spread `json:"serverMs"`
	// ArrivalSeconds: when the API server received each, after the first create.
	ArrivalSeconds spread `json:"arrivalSeconds"`
}

// spread is a distribution in five numbers.
type spread struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	Max    float64 `json:"max"`
}

func spreadOf(v []float64) spread {
	if len(v) == 0 {
		return spread{}
	}
	slices.Sort(v)
	at := func(q float64) float64 { return v[min(len(v)-1, int(q*float64(len(v))))] }
	return spread{Min: v[0], Median: at(0.5), P90: at(0.9), Max: v[len(v)-1]}
}

// timings summarises the requests received in [from, to) by verb and
// resource. Watches are left out: their time on the server is how long they
// stayed open.
func timings(reqs []request, from, to time.Time) map[string]timing {
	server, arrival := map[string][]float64{}, map[string][]float64{}
	for _, r := range reqs {
		if r.Verb == "watch" || r.Received.Before(from) || !r.Received.Before(to) {
			continue
		}
		k := r.Verb + " " + r.Resource
		server[k] = append(server[k], float64(r.Server.Microseconds())/1000)
		arrival[k] = append(arrival[k], r.Received.Sub(from).Seconds())
	}
	out := make(map[string]timing, len(server))
	for k, s := range server {
		out[k] = timing{Count: len(s), ServerMs: spreadOf(s), ArrivalSeconds: spreadOf(arrival[k])}
	}
	return out
}

// AuditMarks are the article's way of timing creation, read from the audit
// log alone: when the API server completed the operator's last create (201)
// of a StatefulSet or Service, of an FE StatefulSet, and its last status
// write (2xx), in seconds after the first create. Unlike the watch's
// completion metrics, these know nothing of the status' content.
type AuditMarks struct {
	// Objects: the last StatefulSet or Service created.
	Objects float64 `json:"objectsSeconds"`
	// FEStatefulSet: the last FE StatefulSet created ("<cluster>-fe").
	FEStatefulSet float64 `json:"feStatefulSetSeconds"`
	// Services: the last Service created.
	Services float64 `json:"servicesSeconds"`
	// Status: the last status write that succeeded.
	Status float64 `json:"statusSeconds"`
}

func auditMarks(reqs []request, from, to time.Time) AuditMarks {
	var m AuditMarks
	last := func(dst *float64, r request) {
		*dst = max(*dst, r.Completed.Sub(from).Seconds())
	}
	for _, r := range reqs {
		if r.Received.Before(from) || !r.Received.Before(to) {
			continue
		}
		switch {
		case r.Verb == "create" && r.Code == 201 && r.Resource == "statefulsets":
			last(&m.Objects, r)
			if strings.HasSuffix(r.Name, "-fe") {
				last(&m.FEStatefulSet, r)
			}
		case r.Verb == "create" && r.Code == 201 && r.Resource == "services":
			last(&m.Objects, r)
			last(&m.Services, r)
		case (r.Verb == "update" || r.Verb == "patch") && strings.HasSuffix(r.Resource, "/status") && r.Code/100 == 2:
			last(&m.Status, r)
		}
	}
	return m
}

// ClusterMarks are the audit log's marks of each cluster counted from its
// own create (when the benchmark's create returned): the slowest cluster
// and the median one. With clusters created at a pace, the marks from the
// first create mostly measure the pace; these measure the operator.
type ClusterMarks struct {
	// FEStatefulSet: its FE StatefulSet created (201).
	FEStatefulSet spread `json:"feStatefulSetSeconds"`
	// Objects: its last StatefulSet or Service created.
	Objects spread `json:"objectsSeconds"`
}

// clusterMarks reads each cluster's creates in [from, to) from reqs by
// their names (<cluster>-fe, <cluster>-fe-service, ...), against created.
func clusterMarks(reqs []request, created map[string]time.Time, from, to time.Time) ClusterMarks {
	fe, objects := map[string]time.Time{}, map[string]time.Time{}
	owner := func(name string) string {
		for _, suffix := range []string{"-fe", "-fe-service", "-fe-search", "-be", "-be-service", "-be-search", "-cn", "-cn-service", "-cn-search"} {
			if c, ok := strings.CutSuffix(name, suffix); ok {
				if _, known := created[c]; known {
					return c
				}
			}
		}
		return ""
	}
	for _, r := range reqs {
		if r.Received.Before(from) || !r.Received.Before(to) || r.Verb != "create" || r.Code != 201 || (r.Resource != "statefulsets" && r.Resource != "services") {
			continue
		}
		c := owner(r.Name)
		if c == "" {
			continue
		}
		if r.Completed.After(objects[c]) {
			objects[c] = r.Completed
		}
		if r.Resource == "statefulsets" && strings.HasSuffix(r.Name, "-fe") {
			fe[c] = r.Completed
		}
	}
	since := func(m map[string]time.Time) spread {
		var v []float64
		for c, t := range m {
			v = append(v, t.Sub(created[c]).Seconds())
		}
		return spreadOf(v)
	}
	return ClusterMarks{FEStatefulSet: since(fe), Objects: since(objects)}
}

// Overlap is how the operator's StatefulSet creates met its other writes on
// the API server: StatefulSets first means the others arrive once the
// StatefulSets are done.
type Overlap struct {
	// StatefulSetsDone: seconds after the first create when the last
	// StatefulSet create completed.
	StatefulSetsDone float64 `json:"statefulSetsDoneSeconds"`
	// WritesBefore: the operator's other writes (Services, status, Events)
	// received while StatefulSet creates were still being handled, before
	// the last of them completed.
	WritesBefore int `json:"writesBeforeStatefulSetsDone"`
	// StatefulSetServerMs: the StatefulSet creates' time on the server,
	// median and p90.
	StatefulSetServerMs spread `json:"statefulSetServerMs"`
}

func overlapOf(reqs []request, from, to time.Time) Overlap {
	var o Overlap
	var last time.Time
	var server []float64
	for _, r := range reqs {
		if r.Verb == "create" && r.Resource == "statefulsets" && !r.Received.Before(from) && r.Received.Before(to) {
			if r.Completed.After(last) {
				last = r.Completed
			}
			server = append(server, float64(r.Server.Microseconds())/1000)
		}
	}
	if last.IsZero() {
		return o
	}
	o.StatefulSetsDone = last.Sub(from).Seconds()
	o.StatefulSetServerMs = spreadOf(server)
	for _, r := range reqs {
		if r.write() && r.Resource != "statefulsets" && !r.Received.Before(from) && r.Received.Before(last) {
			o.WritesBefore++
		}
	}
	return o
}

// Allocations are the API server's ClusterIP allocations while clusters
// were created: kube-apiserver creates an IPAddress object for each
// ClusterIP it allocates, through its own loopback client, while it holds
// one lock for the whole server (pkg/registry/core/service/ipallocator,
// MetaAllocator.AllocateNextService), so these creates come one at a time,
// and a Service that gets a ClusterIP waits for its turn in that line.
type Allocations struct {
	Count int `json:"count"`
	// FirstReceived and LastCompleted: seconds after the run's first create.
	FirstReceived float64 `json:"firstReceivedSeconds"`
	LastCompleted float64 `json:"lastCompletedSeconds"`
	// GapMs: the median time between one allocation's receipt and the next's.
	GapMs float64 `json:"gapMs"`
	// ServerMs: the median time the API server took for one IPAddress create.
	ServerMs float64 `json:"serverMs"`
}

// allocationsOf summarises the IPAddress creates in reqs received in [from,
// to) that succeeded.
func allocationsOf(reqs []request, from, to time.Time) *Allocations {
	var received, server, gaps []float64
	a := &Allocations{}
	for _, r := range reqs {
		// A refused create (409: an address the allocator's cache did not
		// show as taken yet) is retried with the next address: not an allocation.
		if r.Verb != "create" || r.Resource != "ipaddresses" || r.Code/100 != 2 || r.Received.Before(from) || !r.Received.Before(to) {
			continue
		}
		received = append(received, r.Received.Sub(from).Seconds())
		server = append(server, float64(r.Server.Microseconds())/1000)
		a.LastCompleted = max(a.LastCompleted, r.Completed.Sub(from).Seconds())
	}
	if len(received) == 0 {
		return nil
	}
	slices.Sort(received)
	for i := 1; i < len(received); i++ {
		gaps = append(gaps, (received[i]-received[i-1])*1000)
	}
	a.Count, a.FirstReceived = len(received), received[0]
	a.GapMs, a.ServerMs = spreadOf(gaps).Median, spreadOf(server).Median
	return a
}
