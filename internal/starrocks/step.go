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
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// A Planner decides one StarRocks operation: a pure function of its input
// (the spec, the objects, now), of its own typed memory M (what the process
// keeps between reconciles; never truth, FE's answers are) and of what was
// read from FE for it. It returns the Step to do now and the memory to keep
// once that step is done. When it cannot decide without FE, its Step says
// so in Needs and nothing else: the executor reads what it needs and calls
// it once more.
type Planner[In, M any] func(in In, memo M, reads Reads) (Step[M], M)

// Step is what a planner decides for now: the one shape every planner of
// this package returns. The executor (internal/controller/frontend's Run)
// does it in this order, the first failure ending it (Failed is then done
// in its place):
//  1. Needs: nothing else is done; the needs are read and the planner
//     called again with them.
//  2. Record is written, the marks set, the Statements sent to FE through
//     the door, the claims and then the pods of Delete deleted, the marks
//     cleared, a Record that removes the annotation removed: each write
//     that must outlive the process comes before the statement it records.
//  3. The memory is kept; the Holds taken; After, Progress, Log, Events and
//     Err told; then Then is done.
type Step[M any] struct {
	// Needs is what must be read before anything is decided.
	Needs Needs
	// Holds keep StatefulSets, or a field of them, and say why.
	Holds []Hold
	// Record, when set, is an annotation on the object the step is done
	// for (the cluster) that must outlive the process.
	Record *Record
	// Marks are set on pods before the statements they record, or cleared
	// after the statements that took them back.
	Marks []Mark
	// Statements are sent to FE, in order. Independent sends each as its
	// own attempt, within its own timeout: one that fails does not stop
	// the next, and the step fails with their errors joined.
	Statements  []fe.Statement
	Independent bool
	// Delete are the claims, then the pods, deleted after the statements.
	Delete Deletions
	// Events tell what the step did; a Warning one is a Warning Event.
	Events []Event
	// Log is one line for the operator's log.
	Log *Log
	// Progress is what is left of the work, for the operator's metrics.
	Progress *Progress
	// After is how soon to look again; zero says nothing. BackOff looks
	// again on the step's back-off instead (reconcile.Backoff, doubling
	// with each step that backs off, reset by a step that sent statements):
	// a step that failed and must not be tried again at once; Reads.Waiting
	// tells the next plans how long it still waits.
	After   time.Duration
	BackOff bool
	// Err fails the reconcile with it: retried on the controller's back-off.
	Err error
	// Failed is what to do instead of the rest of this step when a write or
	// a statement fails, and the memory to keep then; without it the memory
	// stays what it was before this step, and nothing more is done.
	Failed func(err error) (Step[M], M)
	// Then is done after this step.
	Then *Step[M]
}

// Needs is what a planner must read before it decides. Each is read once
// per reconcile, off the reconcile workers where it can be: FE's report at
// the door's rate.
type Needs struct {
	// Report is FE's report of its nodes and tablets.
	Report bool
	// Fresh: a change of FE's topology begins now (a scale-in), and FE's
	// report read before it no longer counts: the door marks it out of
	// date, and only a report read after counts.
	Fresh bool
	// Config are FE configuration keys to read (ADMIN SHOW FRONTEND CONFIG),
	// from the FE the Service reaches, or with Leader from FE's leader on
	// its own address (FE's report names it; Report is read first): each
	// FE answers from its own memory.
	Config []string
	Leader bool
	// Images asks each FE of FE's report for its metadata image.
	Images bool
	// ComputeNodes asks for FE's list of compute nodes alone, read at or
	// after Since: what decides a DROP of compute nodes, read right before
	// it (off the reconcile workers, at the door's rate).
	ComputeNodes bool
	Since        time.Time
	// StatefulSet reads the step's StatefulSet from the API server, not
	// the cache, right before the statements it decides (an HPA may have
	// scaled it since the cache was filled).
	StatefulSet bool
	// Frontends asks FE's leader for its group now (SHOW FRONTENDS on the
	// leader's own address, FE's report naming it; Report is read first),
	// on the reconcile worker within a short timeout: right before a change
	// of FE's group decided on FE's report, which may be two periods old.
	Frontends bool
	// SingleReplica asks FE's leader (the report's, on its own address)
	// for partitions of replication_num 1 (fe.SingleReplicaSQL): a
	// follower answers from the catalog it replayed, which trails.
	SingleReplica bool
}

// Any reports whether anything is needed.
func (n Needs) Any() bool {
	return n.Report || n.Fresh || len(n.Config) > 0 || n.Images || n.ComputeNodes || n.StatefulSet || n.Frontends || n.SingleReplica
}

// Minus is what of n was not read yet.
func (n Needs) Minus(read Needs) Needs {
	out := Needs{Report: n.Report && !read.Report, Fresh: n.Fresh && !read.Fresh, Images: n.Images && !read.Images,
		ComputeNodes: n.ComputeNodes && !read.ComputeNodes, Since: n.Since, StatefulSet: n.StatefulSet && !read.StatefulSet,
		Frontends:     n.Frontends && !read.Frontends,
		SingleReplica: n.SingleReplica && !read.SingleReplica}
	if len(read.Config) == 0 {
		out.Config, out.Leader = n.Config, n.Leader
	}
	return out
}

// Reads is what the executor read for a planner.
type Reads struct {
	// Read is what was asked for and read: a planner that finds its need
	// here decides on what came (a Report still nil: none yet).
	Read Needs
	// Report is FE's report; nil when there is none yet. Unanswered is
	// true when there is none or FE did not answer (no refusal, no
	// credential or TLS trouble: nothing the user must act on).
	Report     *Report
	Unanswered bool
	// Config is FE's configuration by key; ConfigErr why FE did not show
	// it, ConfigUnanswered when FE did not answer at all.
	Config           map[string]string
	ConfigErr        error
	ConfigUnanswered bool
	// Images is each FE's own word on its image, by FE name; an FE that
	// did not answer is left out, and ImagesErr says why.
	Images    map[string]fe.HAInfo
	ImagesErr error
	// ComputeNodes is FE's list of compute nodes read since Needs.Since;
	// nil when none is in yet.
	ComputeNodes *ComputeNodesRead
	// Frontends is FE's group as its leader listed it for Needs.Frontends;
	// nil when it was not asked for.
	Frontends *FrontendsRead
	// StatefulSet is the step's StatefulSet as the API server has it (nil:
	// gone); StatefulSetErr why it could not be read.
	StatefulSet    *appsv1.StatefulSet
	StatefulSetErr error
	// SingleReplica is what FE listed of its partitions of replication_num
	// 1 (at most fe.SingleReplicaLimit); SingleReplicaErr why it did not,
	// SingleReplicaUnanswered when FE did not answer at all.
	SingleReplica           []fe.PartitionRef
	SingleReplicaErr        error
	SingleReplicaUnanswered bool
	// Waiting is how long a step that backed off still waits.
	Waiting time.Duration
}

// Hold is what a step keeps of a component's StatefulSet, and why.
type Hold struct {
	// Component is whose StatefulSet is held; "" is the component the step
	// is done for.
	Component resources.Component
	// Replicas, when set, holds spec.replicas at this value; Template holds
	// the pod template at its live value, and ConfigHash the .conf hash the
	// StatefulSet records (Quiet: told by the Template hold beside it).
	// Neither holds the StatefulSet whole.
	Replicas   *int32
	Template   bool
	ConfigHash bool
	// Reason is the condition reason; Message says what is kept and why.
	Reason, Message string
	// Waits is the operator's own wait (an order, a read), not a StarRocks
	// step in progress: Progressing does not tell its reason.
	Waits bool
	// Refuses is true when the spec's change is refused (a user error),
	// not waited on.
	Refuses bool
	// Trouble, when set, is FE's error: its kind gives the reason, and
	// the words Message follows.
	Trouble error
}

// Record is an annotation on the object a step is done for (the cluster):
// what must outlive the process. Written before the step's statements, it
// survives a SIGKILL between the two; Value "" removes it, after them.
type Record struct {
	Annotation, Value string
}

// Mark is an operator's mark on a pod of the step's StatefulSet, by
// ordinal: the annotation set to "true" before the statements it records,
// or cleared (Clear) after those that took it back. Gone is true when a
// pod already gone has nothing to record: its mark is skipped, not failed.
type Mark struct {
	Pod         int
	Annotation  string
	Clear, Gone bool
}

// Deletions are the pods of the step's StatefulSet, by ordinal, whose
// claims (Claims) and then whose pods (Pods) are deleted.
type Deletions struct {
	Claims, Pods []int
}

// Progress is what a step tells of the work it waits on: Note is what
// Progressing says of it; Tablets, when set, is what FE still counts on the
// BEs a decommission drains, for the operator's metrics; Done ends that
// count.
type Progress struct {
	Note    string
	Tablets *int
	Done    bool
}

// Log is one line for the operator's log.
type Log struct {
	Message       string
	KeysAndValues []any
}

// Event is an Event on the object the step is done for.
type Event struct {
	Reason, Action, Note string
	// Warning makes it a Warning Event; Normal otherwise.
	Warning bool
}

// withHolds is st with hs added to its holds (a copy: st's own are kept).
func withHolds[M any](st Step[M], hs ...Hold) Step[M] {
	st.Holds = append(slices.Clone(st.Holds), hs...)
	return st
}
