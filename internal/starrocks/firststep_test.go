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
)

func TestAFirstStepWritesWhatFEsPodsNeedFirstWhenWorkersAreShort(t *testing.T) {
	objs := func() []string { return []string{"fe-sts", "fe-service", "fe-search", "fe-pdb"} }
	if got := FirstWrites(objs(), "fe-sts", "fe-search", true); !slices.Equal(got, []string{"fe-sts", "fe-search"}) {
		t.Errorf("with workers short: %v, want the StatefulSet and the headless Service", got)
	}
	if got := FirstWrites(objs(), "fe-sts", "fe-search", false); !slices.Equal(got, objs()) {
		t.Errorf("with workers to spare: %v, want every FE object", got)
	}
}

func TestWorkersAreShortWhenMoreReconcilesWantOneThanThereAre(t *testing.T) {
	for _, tt := range []struct {
		name                     string
		queued, running, workers int
		short                    bool
	}{
		{"a single new cluster", 0, 1, 50, false},
		{"50 new clusters on 50 workers, all running", 0, 50, 50, false},
		{"50 running, one more ready", 1, 50, 50, true},
		{"one worker, one running", 0, 1, 1, false},
		{"one worker, one running, one ready", 1, 1, 1, true},
		{"20 ready, 10 running, 50 workers: a burst the workers take at once", 20, 10, 50, false},
		{"60 ready, 10 running, 50 workers", 60, 10, 50, true},
	} {
		if got := WorkersShort(tt.queued, tt.running, tt.workers); got != tt.short {
			t.Errorf("%s: short = %v, want %v", tt.name, got, tt.short)
		}
	}
}
