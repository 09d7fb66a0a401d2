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

package operator

import (
	"bytes"
	"strings"
	"testing"
)

func TestInvalidFlagsExitNonZeroNamingTheFlag(t *testing.T) {
	tests := []struct {
		args []string
		flag string
	}{
		{[]string{"--max-concurrent-reconciles=-1"}, "--max-concurrent-reconciles"},
		{[]string{"--sync-period=0s"}, "--sync-period"},
		{[]string{"--sync-period=soon"}, "-sync-period"},
		{[]string{"--kube-api-qps=-3"}, "--kube-api-qps"},
		{[]string{"--kube-api-burst=-3"}, "--kube-api-burst"},
		{[]string{"--no-such-flag"}, "no-such-flag"},
		{[]string{"stray-argument"}, "stray-argument"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			if code := Run(tt.args, &stderr, Wiring{}); code != 2 {
				t.Fatalf("exit code %d, want 2; stderr:\n%s", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.flag) {
				t.Fatalf("stderr does not name %s:\n%s", tt.flag, stderr.String())
			}
		})
	}
}
