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

// Package faulttable is docs/reliability.md's StarRocks fault table: rows
// the integration tests measure (STARROCKS_FAULTS), rendered into their
// own section of the file, which `make reliability` keeps.
package faulttable

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// Row is one fault, as one test measured it.
type Row struct {
	// Fault is what went wrong; Injected how the test made it happen.
	Fault, Injected string
	// Converged says what the operator and StarRocks ended at.
	Converged string
	// Lost is what was lost with the operator's safety step; Control what
	// the same fault lost without it ("" when the test has no control).
	Lost, Control string
	// Test is the test's name.
	Test string
}

// Wanted are the faults issue 34 asks the table to cover; a fault no test
// recorded is listed as not tested, so the table never looks fuller than it is.
var Wanted = []string{
	"operator SIGKILL between DECOMMISSION and the StatefulSet write",
	"operator SIGKILL between DROP FOLLOWER and the claims' deletion",
	"a BE down when a BE rollout begins",
	"a BE restarted on empty storage during a rollout",
	"a BE crash during a drain",
	"a node drain during a BE rollout",
	"FEs that never answer, beside a cluster whose FE answers",
	"the FE leader killed during a decommission",
	"the FE leader killed during an FE step",
	"a follower lagging 60 s",
	"a zombie FE answering through the Service",
	"a node drain during an FE step",
	"1,000 clusters whose FE never answers, beside 10 healthy clusters scaling in",
	// Backup (issue 52).
	"operator SIGKILL at each phase of a backup",
	"operator SIGKILL at each phase of a restore",
	"an FE leader change mid-upload",
	"a BE crash mid-upload",
	"an unreachable backup repository",
	"a user's own backup job on the database",
	"retention by age past a database's last good backup",
}

// Heading opens the section; Marker tells `make reliability` to keep it.
const (
	Heading = "## StarRocks faults"
	Marker  = "<!-- Not generated: written by `make starrocks-faults` (test/cmd/faulttable) from the integration tests' rows; `make reliability` keeps it. Do not edit by hand. -->"
)

// Read reads the JSON lines at path.
func Read(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []Row
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}

// Section renders the rows, in the order of Wanted, then any other.
func Section(rows []Row, at time.Time, load string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n\n", Heading, Marker)
	fmt.Fprintf(&b, "Measured on %s (`/proc/loadavg` %s when rendered) by the integration tests named in each row, on a\n"+
		"simulated cluster (a real kube-apiserver and etcd, kwok pods, the simulated StarRocks at FE's defaults unless the\n"+
		"row says otherwise). *Lost* counts tablets with no readable replica (the simulation's truth, not FE's view) or FE\n"+
		"members; *without* is the same fault in the same test without the operator's safety step (the control case).\n\n",
		at.UTC().Format("2006-01-02 15:04 UTC"), load)
	b.WriteString("| Fault | Injected | Converged | Lost | Lost without | Test |\n|---|---|---|---|---|---|\n")
	order := func(r Row) int {
		if i := slices.Index(Wanted, r.Fault); i >= 0 {
			return i
		}
		return len(Wanted)
	}
	slices.SortStableFunc(rows, func(a, c Row) int { return order(a) - order(c) })
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.Fault] = true
		control := r.Control
		if control == "" {
			control = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | `%s` |\n", r.Fault, r.Injected, r.Converged, r.Lost, control, r.Test)
	}
	for _, f := range Wanted {
		if !seen[f] {
			fmt.Fprintf(&b, "| %s | not tested yet | – | – | – | – |\n", f)
		}
	}
	b.WriteString("\nReproduce: `make starrocks-faults` (about 10 minutes; rewrites this section).\n")
	return b.String()
}

// Replace puts section in place of the doc's StarRocks faults section, or
// before its Fuzzing section when it has none, or at its end.
func Replace(doc, section string) string {
	if i := strings.Index(doc, "\n"+Heading+"\n"); i >= 0 {
		end := len(doc)
		if j := strings.Index(doc[i+1:], "\n## "); j >= 0 {
			end = i + 1 + j + 1
		}
		return doc[:i+1] + section + "\n" + doc[end:]
	}
	if i := strings.Index(doc, "\n## Fuzzing\n"); i >= 0 {
		return doc[:i+1] + section + "\n" + doc[i+1:]
	}
	return strings.TrimRight(doc, "\n") + "\n\n" + section
}
