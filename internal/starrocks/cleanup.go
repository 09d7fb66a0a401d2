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

import "time"

// ComputeNodeCleanup is what the cleanup of one CN StatefulSet's compute
// nodes is decided on: FE would otherwise keep the nodes a scale-in removed
// registered forever.
type ComputeNodeCleanup struct {
	// Replicas is spec.replicas; Running is status.replicas.
	Replicas, Running int32
	// Generation and ObservedGeneration are the StatefulSet's.
	Generation, ObservedGeneration int64
	// Checked is where FE was last found clean.
	Checked Checked
	// Backoff is how long a failed cleanup still waits; zero or less when none.
	Backoff time.Duration
}

// CleanupDecision is what CleanUpComputeNodes decides: where FE is found
// clean, how soon to look again, or the ordinal from which nodes are dropped.
type CleanupDecision struct {
	Clean                *int32
	After                time.Duration
	DropComputeNodesFrom *int32
}

// CleanUpComputeNodes decides whether the cleanup is due: only after a
// scale-in (Checked), once the removed pods are gone (their StatefulSet's
// status change brings the reconcile back), and not while a failed one
// backs off. A due cleanup is one statement, run off the reconcile workers.
func CleanUpComputeNodes(in ComputeNodeCleanup) CleanupDecision {
	want := in.Replicas
	switch {
	case in.Checked.Covers(want, in.Generation):
		return CleanupDecision{Clean: &want} // scaled out, unchanged, or never scaled: nothing can be stale
	case in.ObservedGeneration < in.Generation || in.Running != want:
		return CleanupDecision{}
	case in.Backoff > 0:
		return CleanupDecision{After: in.Backoff}
	}
	return CleanupDecision{DropComputeNodesFrom: &want}
}

// CleanUpRemovedComputeNodes decides the cleanup of the compute nodes of a
// CN StatefulSet whose spec was removed: all of them, once its pods are
// gone (podsLeft counts those still there).
func CleanUpRemovedComputeNodes(checked Checked, podsLeft int, backoff time.Duration) CleanupDecision {
	switch {
	case checked.Known && checked.Replicas == 0:
		return CleanupDecision{} // dropped already
	case podsLeft > 0:
		return CleanupDecision{} // their deletions bring the reconcile back
	case backoff > 0:
		return CleanupDecision{After: backoff}
	}
	return CleanupDecision{DropComputeNodesFrom: new(int32(0))}
}
