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

package feaccess

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestFEJobsAreBoundedAcrossTheOperator(t *testing.T) {
	j := NewJobs(2)
	release := make(chan struct{})
	var started atomic.Int32
	for i := range 4 {
		j.Start(types.UID(fmt.Sprint(i)), func() { started.Add(1); <-release })
	}
	if n := len(j.slots); n != 2 {
		t.Errorf("%d jobs hold a slot, want 2", n)
	}
	close(release)
	for range 500 {
		if len(j.slots) == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if started.Load() != 2 || len(j.slots) != 0 {
		t.Errorf("started %d, slots left taken %d; want 2 and 0", started.Load(), len(j.slots))
	}
}
