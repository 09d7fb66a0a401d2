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
	"time"

	"github.com/srscale/starrocks-operator/internal/fe"
)

// Step is what a planner decides for now. The glue does it in this order:
//  1. Read: nothing more is decided before FE's report is read; the
//     glue records Begin or End, reads, and plans again with the report.
//  2. The memory: Begin, End, Clean, Refusal.
//  3. The pod of Mark is annotated as dropped from FE's group, and the BE
//     pods of MarkDecommissioned as decommissioned by the operator, then
//     statements go to FE in order, then the claims of DeleteClaims are
//     deleted, then the pods of Restart, then the marks of Unmark are
//     cleared; the first failure ends them, and
//     Failed(err) is done in place of the rest of this step.
//  4. Holds, After, Tablets, Log, Event and Drain; then Then.
type Step struct {
	// Read asks for FE's report: the planner is called again with it.
	Read bool
	// Begin starts a scale-in: FE's word read before it is out of date,
	// and the scale-in is remembered as active.
	Begin bool
	// End forgets a scale-in that is over (and its tablet metric).
	End bool
	// Clean, when set, is the replicas at which FE was found with nothing
	// left to do for the StatefulSet.
	Clean *int32
	// Refusal is FE's refusal of the spec, remembered until it changes.
	Refusal string
	// Holds keep the StatefulSet, or its replicas, and say why.
	Holds []Hold
	// Statements are sent to FE, in order.
	Statements []fe.Statement
	// DropComputeNodesFrom, when set, drops from FE every compute node of
	// the StatefulSet at or above this ordinal: FE is read first, off the
	// reconcile workers (the CN cleanup).
	DropComputeNodesFrom *int32
	// DeleteClaims are the pod ordinals whose claims are deleted.
	DeleteClaims []int
	// Mark, when set, is the ordinal of the FE pod annotated as dropped
	// from FE's group (srv1.DroppedFromFEGroupAnnotation) before the DROP.
	Mark *int
	// MarkDecommissioned are the ordinals of the BE pods annotated as
	// decommissioned by the operator (srv1.DecommissionedByOperatorAnnotation)
	// before the DECOMMISSION; Unmark those whose mark is cleared once the
	// statements went through (their decommission taken back).
	MarkDecommissioned, Unmark []int
	// Restart are the pod ordinals whose pods are deleted, after their
	// claims: the StatefulSet starts them afresh.
	Restart []int
	// Failed is the step done instead of the rest of this one when a
	// statement or a deletion fails.
	Failed func(err error) Step
	// After is how soon to look again; zero says nothing.
	After time.Duration
	// Tablets, when set, is what FE still counts on the BEs leaving.
	Tablets *int
	// Log and Event tell what the step did.
	Log   *Log
	Event *Event
	// Drain is a decommission in progress: its status is paced by the memory.
	Drain *Drain
	// Then is done after this step.
	Then *Step
}

// Hold is what a step keeps of the component's StatefulSet, and why.
type Hold struct {
	// Replicas, when set, is the value spec.replicas is written at, and
	// the hold is of that field alone; nil holds the StatefulSet whole.
	Replicas *int32
	// Reason is the condition reason; Message says what is kept and why.
	Reason, Message string
	// Refuses is true when the spec's change is refused (a user error),
	// not waited on.
	Refuses bool
	// Trouble, when set, is FE's error: its kind gives the reason, and
	// the words Message follows.
	Trouble error
}

// Log is one line for the operator's log.
type Log struct {
	Message       string
	KeysAndValues []any
}

// Event is a Normal Event on the cluster.
type Event struct {
	Reason, Action, Note string
	// Warning makes it a Warning Event; Normal otherwise (where the
	// caller does not decide the type itself).
	Warning bool
}
