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
	"slices"
	"testing"
	"time"
)

func TestAFirstStepWritesWhatFEsPodsNeedFirst(t *testing.T) {
	objs := func() []string { return []string{"fe-sts", "fe-service", "fe-search", "fe-pdb"} }
	if got := FirstWrites(objs(), "fe-sts", "fe-search", true); !slices.Equal(got, []string{"fe-sts", "fe-search"}) {
		t.Errorf("with reconciles waiting: %v, want the StatefulSet and the headless Service", got)
	}
	if got := FirstWrites(objs(), "fe-sts", "fe-search", false); !slices.Equal(got, []string{"fe-sts"}) {
		t.Errorf("with none waiting: %v, want the StatefulSet alone", got)
	}
}

func TestOthersAreComingWhileReconcilesWaitOrAnotherFirstStepJustBegan(t *testing.T) {
	now := time.Now()
	cases := []struct {
		name    string
		waiting bool
		other   time.Time
		want    bool
	}{
		{"reconciles wait for a worker", true, time.Time{}, true},
		{"another first step began within the window", false, now.Add(-10 * time.Millisecond), true},
		{"the last other first step is long past", false, now.Add(-time.Second), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := OthersComing(tc.waiting, tc.other, now); got != tc.want {
				t.Errorf("coming %v, want %v", got, tc.want)
			}
		})
	}
}
