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

import "context"

// Phase is one step of a reconcile over its scope S: it reads the scope,
// acts, records in the scope what it did, and returns false to end the
// reconcile there. The status is written from the scope in any case, and
// the Events of the writes and errors after the phases.
type Phase[S any] func(ctx context.Context, s S) bool

// Run runs phases in order while each returns true and ready(s) holds
// (ready is false once a phase left nothing to write).
func Run[S any](ctx context.Context, s S, ready func(S) bool, phases ...Phase[S]) {
	for _, phase := range phases {
		if !ready(s) || !phase(ctx, s) {
			return
		}
	}
}
