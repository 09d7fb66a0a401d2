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
)

// arrivalWindow: a first step that began this recently means a burst of
// new clusters is still arriving. It is longer than the gap between the
// clusters of a burst as the informer delivers them, and shorter than a
// round trip to a distant API server (the article's 200 ms).
const arrivalWindow = 50 * time.Millisecond

// FirstWrites is what a new cluster's first step writes of objs: with
// reconciles waiting for a worker, the StatefulSet and the headless Service
// that gives FE's pods their DNS names, in one round trip (the client
// Service and the disruption budget follow); with none waiting, the
// StatefulSet alone.
func FirstWrites[T comparable](objs []T, statefulSet, headlessService T, waiting bool) []T {
	if !waiting {
		return []T{statefulSet}
	}
	need := []T{statefulSet, headlessService}
	return slices.DeleteFunc(objs, func(o T) bool { return !slices.Contains(need, o) })
}

// OthersComing reports whether a first step's worker is wanted elsewhere:
// reconciles wait for a worker now, or another new cluster's first step
// began (at other) within arrivalWindow of now.
func OthersComing(waiting bool, other, now time.Time) bool {
	return waiting || now.Sub(other) < arrivalWindow
}
