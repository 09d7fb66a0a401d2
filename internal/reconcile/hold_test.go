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

package reconcile

import (
	"testing"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// Progressing tells the StarRocks-aware steps with their own reason, a
// stall first; the operator's own waits (an ordered rollout) only say what
// the component waits for. A new step needs no list to be told.
func TestProgressingTellsTheStepsAStallFirst(t *testing.T) {
	hs := Holds{
		{Component: resources.ComponentFE, Reason: srv1.ReasonOrderedRollout, Message: "after BE", Report: Waits},
		{Component: resources.ComponentBE, Reason: srv1.ReasonDecommissioning, Message: "FE decommissions sr-be-3", Report: Steps},
		{Component: resources.ComponentCN, Reason: srv1.ReasonRolloutStalled, Message: "sr-cn-1 not Alive", Report: Steps},
		{Component: resources.ComponentCN, Reason: "AnyNewStep", Message: "a step of tomorrow", Report: Steps},
	}
	obs := &status.Observed{}
	hs.Observe(obs)
	if obs.StepReason != srv1.ReasonRolloutStalled {
		t.Errorf("step reason %q, want the stall's", obs.StepReason)
	}
	want := "BE: FE decommissions sr-be-3; CN: sr-cn-1 not Alive; CN: a step of tomorrow"
	if obs.Step != want {
		t.Errorf("step %q, want %q", obs.Step, want)
	}
	if got := hs.Waiting(resources.ComponentFE); got != "after BE" {
		t.Errorf("FE waits for %q, want its ordered rollout", got)
	}
	if got := hs.Waiting(resources.ComponentBE); got != "FE decommissions sr-be-3" {
		t.Errorf("BE waits for %q, want its decommission", got)
	}
}
