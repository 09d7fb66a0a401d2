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

package starrocks

import (
	"errors"
	"strings"
	"testing"

	"github.com/srscale/starrocks-operator/internal/fe"
)

func TestRunModeRefusal(t *testing.T) {
	nothing := &Report{Backends: []fe.Backend{{Host: "be-0"}}}
	shared := &Report{Backends: []fe.Backend{{Host: "be-0", SharedData: true}}}
	cnOnly := &Report{ComputeNodes: []fe.ComputeNode{{Host: "cn-0", SharedData: true}}}
	for _, tc := range []struct {
		name       string
		wantShared bool
		report     *Report
		refused    string // a part of the message; "" none
	}{
		{"shared-nothing stays", false, nothing, ""},
		{"shared-data stays", true, shared, ""},
		{"shared-nothing to shared-data is refused", true, nothing, "FE runs shared-nothing"},
		{"shared-data to shared-nothing is refused", false, shared, "FE runs shared-data"},
		{"shared-data told by a compute node alone", false, cnOnly, "FE runs shared-data"},
		{"no node listed: FE's mode unknown, not refused", true, &Report{}, ""},
		{"no report: not refused", true, nil, ""},
		{"FE did not answer: not refused", true, &Report{Err: errors.New("timeout"), Backends: nothing.Backends}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RunModeRefusal(tc.wantShared, tc.report)
			if tc.refused == "" && got != "" || tc.refused != "" && !strings.Contains(got, tc.refused) {
				t.Errorf("%q, want %q", got, tc.refused)
			}
		})
	}
}
